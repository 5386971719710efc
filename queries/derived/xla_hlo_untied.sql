-- Params: none
-- Needs: schema
-- GPU work of modules with known programs that no op was found for (gpu_hlo_ops).
-- Columns: activities, total_ns, command_buffers (their hlo_op names, comma-separated)
SELECT count(*), coalesce(sum(g.duration_ns), 0)::BIGINT,
       string_agg(DISTINCT g.hlo_op, ', ' ORDER BY g.hlo_op)
FROM gpu_activities AS g
ANTI JOIN gpu_hlo_ops AS k ON k.gpu_id = g.id
WHERE g.hlo_op IS NOT NULL
  AND g.hlo_module IN (SELECT DISTINCT hlo_module FROM hlo_ops);
