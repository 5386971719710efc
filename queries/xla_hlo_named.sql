-- GPU work of an XLA trace whose hlo_op is an op of a program of its module (work
-- launched alone, not in a command buffer) into gpu_hlo_ops, matched 'op'. Where several
-- programs share the module's name (JAX recompiles a function for new shapes), the
-- first that has an op of that name.
INSERT INTO gpu_hlo_ops
SELECT g.id, o.program_id, g.hlo_op, NULL, 'op'
FROM gpu_activities AS g
JOIN (SELECT hlo_module, hlo_op, min(program_id) AS program_id
      FROM hlo_ops GROUP BY hlo_module, hlo_op) AS o
  ON o.hlo_module = g.hlo_module AND o.hlo_op = g.hlo_op;
