-- Params: none
-- Needs: schema
-- GPU time per framework op path for XLA traces (hlo_ops.op_name, e.g.
-- 'jit(step)/transpose(jvp(LM))/Dense_0/dot_general'; of an op fused from several, the
-- first), for the Code view's tree. Columns: path, gpu_ns, launches
SELECT split_part(o.op_name, ';', 1) AS path, sum(g.duration_ns)::BIGINT AS gpu_ns,
       count(*) AS launches
FROM gpu_hlo_ops AS k
JOIN gpu_activities AS g ON g.id = k.gpu_id
JOIN hlo_ops AS o
  ON o.hlo_module = g.hlo_module AND o.program_id = k.program_id AND o.hlo_op = k.hlo_op
WHERE o.op_name <> ''
GROUP BY path
ORDER BY path;
