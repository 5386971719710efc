-- Params: none
-- Needs: schema
-- The ops each module's GPU work names itself (launched alone, not in a command buffer):
-- no command buffer ran them. Columns: hlo_module, hlo_op
SELECT DISTINCT g.hlo_module, k.hlo_op
FROM gpu_hlo_ops AS k
JOIN gpu_activities AS g ON g.id = k.gpu_id
WHERE k.command_buffer IS NULL;
