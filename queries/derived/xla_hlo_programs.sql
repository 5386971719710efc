-- Params: none
-- Needs: schema
-- Each HLO program's ops in the order they run (hlo_schedule) with what the placing of
-- command-buffer work needs of them. Columns: hlo_module, program_id, hlo_op, opcode, category
SELECT s.hlo_module, s.program_id, s.hlo_op, o.opcode, o.category
FROM hlo_schedule AS s
JOIN hlo_ops AS o USING (hlo_module, program_id, hlo_op)
ORDER BY s.hlo_module, s.program_id, s.position;
