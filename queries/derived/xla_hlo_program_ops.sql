-- Params: none
-- Needs: schema
-- Every op of every HLO program (hlo_ops), for placing kernels by name.
-- Columns: hlo_module, program_id, hlo_op, opcode, category
SELECT hlo_module, program_id, hlo_op, opcode, category
FROM hlo_ops
ORDER BY hlo_module, program_id, hlo_op;
