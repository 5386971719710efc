-- Params: none
-- Needs: temp table step_work
-- Per rank: the median over its steps of the share of each step's GPU time (first start
-- to last end of the step's work, step_work: rank_step_work.sql) in which no compute
-- kernel ran (NCCL kernels and idle time: a pipeline stage's bubble); the median, so
-- that a warm-up step (compilation, NCCL's set-up: seconds long) weighs no more than
-- another. Compute kernels are every kernel but NCCL's, their overlapping runs (several
-- streams) counted once.
-- Columns: rank, steps, gpu_ns, compute_ns (both summed over the steps), bubble_pct; by
--          rank.
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
    SELECT rank, window_ns, sum(island_end - island_start) AS compute_ns
    FROM (SELECT rank, window_ns, island, min(start_ns) AS island_start,
                 max(end_ns) AS island_end
          FROM islands GROUP BY rank, window_ns, island)
    GROUP BY rank, window_ns
), per_step AS (
    SELECT w.rank, w.gpu_end_ns - w.gpu_start_ns AS gpu_ns,
           coalesce(b.compute_ns, 0) AS compute_ns
    FROM windows AS w
    LEFT JOIN busy AS b ON b.rank = w.rank AND b.window_ns = w.gpu_start_ns
)
SELECT rank, count(*) AS steps, sum(gpu_ns) AS gpu_ns, sum(compute_ns) AS compute_ns,
       median(100 * (1 - compute_ns / gpu_ns)) AS bubble_pct
FROM per_step
GROUP BY rank
ORDER BY rank;
