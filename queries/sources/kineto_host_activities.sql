-- Params: none
-- Needs: temp macro kineto_int_id, table scratch.kineto_events
-- Host work in the parsed Kineto events, as the view staged_host (written out, with each
-- range's nesting depth, by finalize_activities.sql).
CREATE TEMP VIEW staged_host (
    kind, pid, tid, start_ns, end_ns, duration_ns, name, correlation, depth, python_id,
    python_parent_id
) AS
SELECT
    CASE
        WHEN cat = 'cuda_runtime' OR cat = 'cuda_driver' OR cat = 'runtime' OR cat = 'driver'
            THEN 'runtime'
        WHEN cat = 'cpu_op' OR cat = 'operator' THEN 'cpu_op'
        WHEN cat = 'user_annotation' THEN 'annotation'
        ELSE 'python'
    END AS kind,
    -- the first integer in the text (kineto_macros.sql)
    kineto_int_id(pid) AS pid,
    kineto_int_id(tid) AS tid,
    start_ns,
    start_ns + duration_ns AS end_ns,
    duration_ns,
    -- a built-in's frame names the object it was called on by its address ('<built-in
    -- method __exit__ of … object at 0x7f24…>'): the same function under many names,
    -- and digits that numbered names (batch_3 as batch_N) would read as a number
    CASE WHEN cat = 'python_function' AND contains(name, ' at 0x')
         THEN regexp_replace(name, ' at 0x[0-9a-fA-F]+>$', '>') ELSE name END AS name,
    TRY_CAST(args.correlation AS BIGINT) AS correlation,
    0 AS depth,
    -- a Python frame's own ids (with_stack=True)
    CASE WHEN cat = 'python_function' THEN TRY_CAST(args."Python id" AS BIGINT) END,
    CASE WHEN cat = 'python_function' THEN TRY_CAST(args."Python parent id" AS BIGINT) END
FROM scratch.kineto_events
WHERE ph = 'X'
  -- comparisons, not `cat IN (...)`: DuckDB turns an IN list into a join, which may
  -- reorder the rows, and their order (the file's) gives them their ids; nor a regexp,
  -- which took a third of this scan's time
  AND (cat = 'cuda_runtime' OR cat = 'cuda_driver' OR cat = 'runtime' OR cat = 'driver'
       OR cat = 'cpu_op' OR cat = 'operator' OR cat = 'user_annotation'
       OR cat = 'python_function')
  AND start_ns IS NOT NULL AND duration_ns >= 0
  -- start and end within ±2^62 ns, so no difference of two times overflows
  AND start_ns >= -4611686018427387903
  AND start_ns::HUGEINT + duration_ns <= 4611686018427387903;
