-- Params: none
-- Needs: arrow kernel_names
-- The kernel table grouped by category (`kernel_names`: name, short, category, from
-- tui/core/categories.py): per category the same statistics as table_kernels.sql over all its
-- kernels, and how many names it holds.
-- Columns: category, names, count, total_ns, avg_ns, median_ns, min_ns, max_ns, percent.
SELECT
    n.category,
    count(DISTINCT k.name) AS names,
    count(*) AS count,
    sum(k.duration_ns)::BIGINT AS total_ns,
    avg(k.duration_ns) AS avg_ns,
    median(k.duration_ns)::DOUBLE AS median_ns,
    min(k.duration_ns) AS min_ns,
    max(k.duration_ns) AS max_ns,
    100.0 * sum(k.duration_ns) / sum(sum(k.duration_ns)) OVER () AS percent
FROM gpu_activities AS k
JOIN kernel_names AS n USING (name)
WHERE k.kind = 'kernel'
GROUP BY n.category
