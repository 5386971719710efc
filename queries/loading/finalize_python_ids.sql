-- Params: none
-- Needs: table finalize.host_rows
-- The Python frames' own ids ("Python id", "Python parent id": Kineto's frames have
-- them) by their host ids, from the staged host rows finalize_host_rows.sql copied out
-- (each row's id is its row id), for the stacks (stacks_python_ids.sql). A table of the
-- database, not a temp one: build_stacks reads it on another connection, and drops it.
CREATE OR REPLACE TABLE stacks_staged_python AS
SELECT rowid AS id, python_id, python_parent_id
FROM finalize.host_rows
WHERE kind = 'python' AND (python_id IS NOT NULL OR python_parent_id IS NOT NULL);
