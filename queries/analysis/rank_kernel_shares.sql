-- Params: none
-- Needs: schema
-- The GPU time of each rank's NCCL kernels and of its other kernels (its compute): a run
-- whose every rank ran collectives alone is a communication benchmark (nccl-tests', a
-- program timing its collectives), whose calls say nothing of a model's parallelism. Each
-- rank apart: a straggler computes, whoever waits for it in NCCL.
-- Columns: rank, nccl_ns, other_ns
SELECT rank,
       coalesce(sum(end_ns - start_ns) FILTER (WHERE name ILIKE '%nccl%'), 0) AS nccl_ns,
       coalesce(sum(end_ns - start_ns) FILTER (WHERE name NOT ILIKE '%nccl%'), 0) AS other_ns
FROM gpu_activities
WHERE kind = 'kernel' AND end_ns > start_ns
GROUP BY rank
ORDER BY rank;
