-- Params: none
-- Needs: schema
-- GPU work of an XLA trace with no line of code (code_source 'hlo'): no HLO op was found
-- for it, or its op records neither a stack nor a source line.
-- Columns: gpu_ns, launches, linked (GPU activities tied to an HLO op at all)
SELECT coalesce(sum(g.duration_ns) FILTER (WHERE o.hlo_op IS NULL
           OR (coalesce(len(o.stack), 0) = 0 AND o.source_file IS NULL)), 0)::BIGINT,
       count(*) FILTER (WHERE o.hlo_op IS NULL
           OR (coalesce(len(o.stack), 0) = 0 AND o.source_file IS NULL)),
       count(k.gpu_id)
FROM gpu_activities AS g
LEFT JOIN gpu_hlo_ops AS k ON k.gpu_id = g.id
LEFT JOIN hlo_ops AS o
  ON o.hlo_module = g.hlo_module AND o.program_id = k.program_id AND o.hlo_op = k.hlo_op;
