-- NVTX ranges / user annotations per name: how many, their total and the GPU time inside
-- them, i.e. for each range instance the time some kernel ran on the GPU during it (the
-- union of the kernels overlapping the range, clipped to it, per device so that
-- concurrent streams count once), summed over the instances.
-- Columns: name, count, total_ns, avg_ns, max_ns, gpu_ns, gpu_pct, kernels,
--          longest_start_ns, longest_end_ns.
WITH r AS (
    SELECT id, name, start_ns, end_ns, duration_ns
    FROM host_activities WHERE kind = 'annotation'
), clipped AS (
    -- a plain two-sided range join: DuckDB runs it as an IEJoin
    SELECT r.id, k.device, greatest(k.start_ns, r.start_ns) AS s, least(k.end_ns, r.end_ns) AS e
    FROM r
    JOIN gpu_activities AS k
      ON k.kind = 'kernel' AND k.start_ns < r.end_ns AND k.end_ns > r.start_ns
), ordered AS (
    SELECT *, max(e) OVER (PARTITION BY id, device ORDER BY s, e
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
    FROM clipped
), islands AS (
    -- a new busy stretch starts where no earlier kernel reaches
    SELECT *, sum(CASE WHEN reach >= s THEN 0 ELSE 1 END)
                  OVER (PARTITION BY id, device ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS island
    FROM ordered
), busy AS (
    SELECT id, sum(e - s) AS busy_ns, sum(n) AS kernels
    FROM (SELECT id, device, island, max(e) - min(s) AS e, 0 AS s, count(*) AS n
          FROM islands GROUP BY id, device, island)
    GROUP BY id
)
SELECT
    r.name,
    count(*) AS count,
    sum(r.duration_ns)::BIGINT AS total_ns,
    avg(r.duration_ns) AS avg_ns,
    max(r.duration_ns) AS max_ns,
    coalesce(sum(b.busy_ns), 0)::BIGINT AS gpu_ns,
    CASE WHEN sum(r.duration_ns) > 0
         THEN 100.0 * coalesce(sum(b.busy_ns), 0) / sum(r.duration_ns) END AS gpu_pct,
    coalesce(sum(b.kernels), 0)::BIGINT AS kernels,
    arg_max(r.start_ns, r.duration_ns) AS longest_start_ns,
    arg_max(r.end_ns, r.duration_ns) AS longest_end_ns
FROM r
LEFT JOIN busy AS b USING (id)
GROUP BY r.name
