-- Params: none
-- Needs: schema
-- GPU time per XLA op (XLA traces: gpu_activities.hlo_op), like XProf's op profile:
-- every kernel, copy and set the op ran on a GPU, total time descending.
-- percent: share of the summed time of all GPU activities that name an op.
-- Columns: hlo_module, hlo_op, tf_op (the op's most common framework op), count, kernels,
--          total_ns, avg_ns, percent
SELECT
    hlo_module,
    hlo_op,
    mode(tf_op) AS tf_op,
    count(*) AS count,
    count(*) FILTER (WHERE kind = 'kernel') AS kernels,
    sum(duration_ns)::BIGINT AS total_ns,
    avg(duration_ns) AS avg_ns,
    100.0 * sum(duration_ns) / sum(sum(duration_ns)) OVER () AS percent
FROM gpu_activities
WHERE hlo_op IS NOT NULL
GROUP BY hlo_module, hlo_op
ORDER BY total_ns DESC, hlo_module, hlo_op;
