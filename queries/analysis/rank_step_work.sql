-- Params: none
-- Needs: temp table collective_instances, temp table step_ranges
-- Per step of every rank: the GPU work it launched (by correlation id, within the step's
-- first..last_correlation) and how long that work's NCCL kernels waited for other ranks.
-- Reads the temporary tables `step_ranges` (rank_step_ranges.sql) and
-- `collective_instances` (rank_collectives.sql).
-- gpu_ns: first start to last end of the step's GPU work (kernels, copies, sets): the
-- step's time on the GPU, which lags its host range when launches run ahead.
-- Columns: rank, step, start_ns, host_ns, gpu_start_ns, gpu_end_ns, gpu_ns, activities,
--          wait_ns (its NCCL kernels' wait), caused (list of {rank, wait_ns}: this step's
--          wait, by the rank waited for).
WITH ranged AS (
    SELECT * FROM step_ranges WHERE first_correlation IS NOT NULL
), work AS (
    SELECT s.rank, s.start_ns AS step_start_ns, min(g.start_ns) AS gpu_start_ns,
           max(g.end_ns) AS gpu_end_ns, count(*) AS activities
    FROM gpu_activities AS g
    ASOF JOIN ranged AS s ON g.rank = s.rank AND g.correlation >= s.first_correlation
    WHERE g.correlation <= s.last_correlation
    GROUP BY s.rank, s.start_ns
), waits AS (
    SELECT s.rank, s.start_ns AS step_start_ns, c.waited_for, sum(c.wait_ns) AS wait_ns
    FROM collective_instances AS c
    ASOF JOIN ranged AS s ON c.rank = s.rank AND c.correlation >= s.first_correlation
    WHERE c.correlation <= s.last_correlation AND c.wait_ns > 0
    GROUP BY s.rank, s.start_ns, c.waited_for
), step_waits AS (
    SELECT rank, step_start_ns, sum(wait_ns) AS wait_ns,
           list({'rank': waited_for, 'wait_ns': wait_ns::BIGINT} ORDER BY waited_for)
               AS caused
    FROM waits
    GROUP BY rank, step_start_ns
)
SELECT
    r.rank, r.step, r.start_ns, r.duration_ns AS host_ns,
    w.gpu_start_ns, w.gpu_end_ns, w.gpu_end_ns - w.gpu_start_ns AS gpu_ns,
    coalesce(w.activities, 0) AS activities,
    coalesce(sw.wait_ns, 0)::BIGINT AS wait_ns,
    coalesce(sw.caused, []) AS caused
FROM step_ranges AS r
LEFT JOIN work AS w ON w.rank = r.rank AND w.step_start_ns = r.start_ns
LEFT JOIN step_waits AS sw ON sw.rank = r.rank AND sw.step_start_ns = r.start_ns
ORDER BY r.rank, r.start_ns;
