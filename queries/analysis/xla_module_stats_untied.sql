-- Params: none
-- Needs: schema
-- GPU time per XLA module (XLA traces: gpu_activities.hlo_module, a jitted computation),
-- total time descending. percent: share of the summed time of all GPU activities that
-- name a module. Columns: hlo_module, ops (distinct hlo_op), count, kernels, total_ns, percent
SELECT
    hlo_module,
    count(DISTINCT hlo_op) AS ops,
    count(*) AS count,
    count(*) FILTER (WHERE kind = 'kernel') AS kernels,
    sum(duration_ns)::BIGINT AS total_ns,
    100.0 * sum(duration_ns) / sum(sum(duration_ns)) OVER () AS percent
FROM gpu_activities
WHERE hlo_module IS NOT NULL
GROUP BY hlo_module
ORDER BY total_ns DESC, hlo_module;
