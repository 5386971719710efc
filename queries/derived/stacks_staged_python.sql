-- Params: none
-- Needs: none
-- The Python frames' own ids by their host ids, as finalize writes them
-- (finalize_python_ids.sql), for stacks_python_ids.sql: made empty here for a trace whose
-- loader wrote its host rows itself (none has such ids), so the stacks are built the same
-- way for every trace. build_stacks drops it.
-- Columns: id, python_id, python_parent_id
CREATE TABLE IF NOT EXISTS stacks_staged_python (
    id BIGINT, python_id BIGINT, python_parent_id BIGINT)
