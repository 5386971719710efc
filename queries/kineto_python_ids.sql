-- The Kineto Python frames' own ids, in the order their host_activities rows are numbered
-- (the file's, among python_function events with usable times: kineto_host_activities.sql
-- keeps the same ones), for tui/sources/stacks.py to pair with those rows by position.
-- A table of the database, not a temp one: it must outlive the loader's staging, which
-- is dropped before the stacks are built; build_stacks drops it.
-- Columns: ord (1, 2, ... in that order), start_ns, python_id, python_parent_id
CREATE OR REPLACE TABLE stacks_staged_python AS
SELECT row_number() OVER () AS ord,
       start_ns,
       TRY_CAST(args."Python id" AS BIGINT) AS python_id,
       TRY_CAST(args."Python parent id" AS BIGINT) AS python_parent_id
FROM scratch.kineto_events
WHERE ph = 'X'
  AND cat = 'python_function'
  AND start_ns IS NOT NULL AND duration_ns >= 0
  AND start_ns >= -4611686018427387903
  AND start_ns::HUGEINT + duration_ns <= 4611686018427387903;
