-- Params: none
-- Needs: temp table step_work
-- Per rank: the share of its steps' GPU time (first start to last end of each step's
-- work, step_work: rank_step_work.sql) in which no compute kernel ran (NCCL kernels and
-- idle time: a pipeline stage's bubble). Compute kernels are every kernel but NCCL's,
-- their overlapping runs (several streams) counted once.
-- Columns: rank, steps, gpu_ns, compute_ns, bubble_pct; by rank.
WITH windows AS (
    SELECT rank, gpu_start_ns, gpu_end_ns FROM step_work WHERE gpu_ns > 0
), compute AS (
    SELECT w.rank, w.gpu_start_ns AS window_ns,
           greatest(g.start_ns, w.gpu_start_ns) AS start_ns,
           least(g.end_ns, w.gpu_end_ns) AS end_ns
    FROM gpu_activities AS g
    JOIN windows AS w
        ON g.rank = w.rank AND g.end_ns > w.gpu_start_ns AND g.start_ns < w.gpu_end_ns
    WHERE g.kind = 'kernel' AND NOT g.name ILIKE '%nccl%'
), marked AS (
    SELECT *, CASE WHEN start_ns <= max(end_ns) OVER (
                   PARTITION BY rank, window_ns ORDER BY start_ns, end_ns
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
                   THEN 0 ELSE 1 END AS opens
    FROM compute
), islands AS (
    SELECT *, sum(opens) OVER (PARTITION BY rank, window_ns ORDER BY start_ns, end_ns)
               AS island
    FROM marked
), busy AS (
    SELECT rank, sum(island_end - island_start) AS compute_ns
    FROM (SELECT rank, window_ns, island, min(start_ns) AS island_start,
                 max(end_ns) AS island_end
          FROM islands GROUP BY rank, window_ns, island)
    GROUP BY rank
), spans AS (
    SELECT rank, count(*) AS steps, sum(gpu_end_ns - gpu_start_ns) AS gpu_ns
    FROM windows GROUP BY rank
)
SELECT s.rank, s.steps, s.gpu_ns, coalesce(b.compute_ns, 0) AS compute_ns,
       100 * (1 - coalesce(b.compute_ns, 0) / s.gpu_ns) AS bubble_pct
FROM spans AS s
LEFT JOIN busy AS b USING (rank)
ORDER BY s.rank;
