-- Params: none
-- Needs: temp table step_ranges, temp table step_work
-- Per rank of a combined run: its training steps, their time from the host ranges and on
-- the GPU, and the NCCL waiting done in them. Reads the temporary table `step_work`
-- (rank_step_work.sql, one row per step). Ranks without steps are absent.
-- Columns: rank, steps, step_median_ns, step_avg_ns, step_min_ns, step_max_ns (host
--          ranges), step_names ('ProfilerStep' or 'named'), gpu_steps (steps that
--          launched GPU work), step_gpu_median_ns (first start to last end of a step's
--          GPU work), wait_in_steps_ns (this rank's NCCL wait in its steps),
--          caused_in_steps_ns (the other ranks' wait for this rank, in their steps).
WITH own AS (
    SELECT
        w.rank,
        count(*) AS steps,
        median(w.host_ns)::BIGINT AS step_median_ns,
        avg(w.host_ns) AS step_avg_ns,
        min(w.host_ns) AS step_min_ns,
        max(w.host_ns) AS step_max_ns,
        CASE WHEN bool_or(r.profiler_step) THEN 'ProfilerStep' ELSE 'named' END AS step_names,
        count(w.gpu_ns) AS gpu_steps,
        median(w.gpu_ns)::BIGINT AS step_gpu_median_ns,
        sum(w.wait_ns)::BIGINT AS wait_in_steps_ns
    FROM step_work AS w
    JOIN step_ranges AS r USING (rank, start_ns)
    GROUP BY w.rank
), caused AS (
    SELECT c.rank, sum(c.wait_ns)::BIGINT AS caused_in_steps_ns
    FROM (SELECT unnest(caused) AS c FROM step_work)
    GROUP BY c.rank
)
SELECT own.*, coalesce(caused.caused_in_steps_ns, 0)::BIGINT AS caused_in_steps_ns
FROM own
LEFT JOIN caused USING (rank)
ORDER BY rank;
