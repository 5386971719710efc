-- Params: none
-- Needs: schema
-- A row when some GPU work tied to an HLO op (gpu_hlo_ops) has a line of code.
SELECT 1
FROM gpu_hlo_ops AS k
JOIN gpu_activities AS g ON g.id = k.gpu_id
JOIN hlo_ops AS o
  ON o.hlo_module = g.hlo_module AND o.program_id = k.program_id AND o.hlo_op = k.hlo_op
WHERE len(o.stack) > 0 OR o.source_file IS NOT NULL
LIMIT 1;
