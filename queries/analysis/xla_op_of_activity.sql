-- Params: $id
-- Needs: schema
-- The HLO op a GPU activity ran for (gpu_hlo_ops), with its line of code and op path:
-- for the details of a kernel. $id: gpu_activities.id. No row: not tied to an op.
-- Columns: hlo_module, hlo_op, command_buffer, matched, category, op_name, source_file,
--          source_line, user_code, stack
SELECT g.hlo_module, k.hlo_op, k.command_buffer, k.matched, o.category, o.op_name,
       o.source_file, o.source_line, o.user_code, o.stack
FROM gpu_hlo_ops AS k
JOIN gpu_activities AS g ON g.id = k.gpu_id
LEFT JOIN hlo_ops AS o
  ON o.hlo_module = g.hlo_module AND o.program_id = k.program_id AND o.hlo_op = k.hlo_op
WHERE k.gpu_id = $id;
