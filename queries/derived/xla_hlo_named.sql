-- Params: none
-- Needs: schema
-- GPU work of an XLA trace whose hlo_op is an op of a program of its module (work
-- launched alone, not in a command buffer) into gpu_hlo_ops, matched 'op'. The trace
-- names the module, not the program: where several programs share the module's name (JAX
-- recompiles a function for new shapes, or compiles one name at two call sites), the
-- first that has an op of that name, and 'guess' where they give the op different lines
-- or op paths.
INSERT INTO gpu_hlo_ops
SELECT g.id, o.program_id, g.hlo_op, NULL, o.matched
FROM gpu_activities AS g
JOIN (SELECT hlo_module, hlo_op, min(program_id) AS program_id,
             CASE WHEN count(DISTINCT (op_name, source_file, source_line)) > 1
                  THEN 'guess' ELSE 'op' END AS matched
      FROM hlo_ops GROUP BY hlo_module, hlo_op) AS o
  ON o.hlo_module = g.hlo_module AND o.hlo_op = g.hlo_op;
