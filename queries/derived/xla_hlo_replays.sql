-- Params: none
-- Needs: schema
-- The work of XLA command buffers, to be placed on ops: GPU activities of a module with
-- known programs whose hlo_op is none of their ops ('command_buffer_1') and that no op was
-- found for yet (gpu_hlo_ops), in id order, which on a device is the order they started
-- (finalize_activities.sql). `replay` keys one launch of the buffer: its work shares the
-- launch's correlation id (without one, all of a device's work of that buffer is one).
-- Columns: id, replay, hlo_module, command_buffer, name, kind
SELECT g.id,
       hash(g.hlo_module, g.hlo_op, g.device, coalesce(g.correlation, -1)) AS replay,
       g.hlo_module, g.hlo_op AS command_buffer, g.name, g.kind
FROM gpu_activities AS g
ANTI JOIN gpu_hlo_ops AS k ON k.gpu_id = g.id
WHERE g.hlo_op IS NOT NULL
  AND g.hlo_module IN (SELECT DISTINCT hlo_module FROM hlo_ops)
ORDER BY g.id;
