-- Params: none
-- Needs: schema
-- The GPU time of a run's NCCL kernels and of its other kernels (its compute), over every
-- rank: a run that ran collectives alone is a communication benchmark (nccl-tests', a
-- program timing its collectives), whose calls say nothing of a model's parallelism.
-- Columns: nccl_ns, other_ns
SELECT coalesce(sum(end_ns - start_ns) FILTER (WHERE name ILIKE '%nccl%'), 0) AS nccl_ns,
       coalesce(sum(end_ns - start_ns) FILTER (WHERE name NOT ILIKE '%nccl%'), 0) AS other_ns
FROM gpu_activities
WHERE kind = 'kernel' AND end_ns > start_ns;
