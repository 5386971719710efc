-- Params: $noise_ns, $noise_pct
-- Needs: schema
-- Kernels of two traces side by side: rank 0 of a combined pair is BEFORE, rank 1 AFTER
-- (tui/runs/combine.py). Kernels are matched by kernel_key(name), a Python function
-- registered on the connection (tui/analysis/kernel_names.py), so a Kineto trace and an
-- nsys export of one program match. A status compares the average duration per launch:
-- 'same' when it moved by less than the noise, max($noise_pct percent, $noise_ns), else
-- 'faster' / 'slower'; 'appeared' / 'vanished' when one side lacks the kernel.
-- Parameters: $noise_pct, $noise_ns.
-- Columns: name, key, status, before_count, after_count, before_total_ns, after_total_ns,
--          delta_ns, before_avg_ns, after_avg_ns, avg_change_pct; largest |delta| first.
WITH by_name AS (
    SELECT rank, name, count(*) AS n, sum(duration_ns) AS total_ns
    FROM gpu_activities
    WHERE kind = 'kernel' AND rank IN (0, 1)
    GROUP BY rank, name
), keyed AS (
    SELECT rank, kernel_key(name) AS key, arg_max(name, total_ns) AS name,
           sum(n) AS n, sum(total_ns) AS total_ns
    FROM by_name
    GROUP BY rank, key
), b AS (
    SELECT * FROM keyed WHERE rank = 0
), a AS (
    SELECT * FROM keyed WHERE rank = 1
), joined AS (
    SELECT
        coalesce(a.name, b.name) AS name,
        key,
        coalesce(b.n, 0) AS before_count,
        coalesce(a.n, 0) AS after_count,
        coalesce(b.total_ns, 0)::BIGINT AS before_total_ns,
        coalesce(a.total_ns, 0)::BIGINT AS after_total_ns,
        b.total_ns / b.n AS before_avg_ns,
        a.total_ns / a.n AS after_avg_ns
    FROM b
    FULL OUTER JOIN a USING (key)
)
SELECT
    name, key,
    CASE
        WHEN before_count = 0 THEN 'appeared'
        WHEN after_count = 0 THEN 'vanished'
        WHEN abs(after_avg_ns - before_avg_ns)
             < greatest(before_avg_ns * $noise_pct / 100, $noise_ns) THEN 'same'
        WHEN after_avg_ns > before_avg_ns THEN 'slower'
        ELSE 'faster'
    END AS status,
    before_count, after_count, before_total_ns, after_total_ns,
    after_total_ns - before_total_ns AS delta_ns,
    before_avg_ns, after_avg_ns,
    100.0 * (after_avg_ns / before_avg_ns - 1) AS avg_change_pct
FROM joined
ORDER BY abs(after_total_ns - before_total_ns) DESC, name;
