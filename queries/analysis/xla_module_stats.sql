-- Params: none
-- Needs: schema
-- GPU time per XLA module (XLA traces: gpu_activities.hlo_module, a jitted computation),
-- total time descending. percent: share of the summed time of all GPU activities that
-- name a module. ops: distinct ops, work in command buffers counted under the ops it was
-- tied to (gpu_hlo_ops). Columns: hlo_module, ops, count, kernels, total_ns, percent
SELECT
    g.hlo_module,
    count(DISTINCT coalesce(k.hlo_op, g.hlo_op)) AS ops,
    count(*) AS count,
    count(*) FILTER (WHERE g.kind = 'kernel') AS kernels,
    sum(g.duration_ns)::BIGINT AS total_ns,
    100.0 * sum(g.duration_ns) / sum(sum(g.duration_ns)) OVER () AS percent
FROM gpu_activities AS g
LEFT JOIN gpu_hlo_ops AS k ON k.gpu_id = g.id
WHERE g.hlo_module IS NOT NULL
GROUP BY g.hlo_module
ORDER BY total_ns DESC, g.hlo_module;
