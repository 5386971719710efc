-- The Python frames' own ids, as a loader stages them (kineto_python_ids.sql), for
-- stacks_python_ids.sql to pair up: made empty here when the loader staged none, so the
-- stacks are built the same way for every trace. build_stacks drops it.
-- Columns: ord, start_ns, python_id, python_parent_id
CREATE TABLE IF NOT EXISTS stacks_staged_python (
    ord BIGINT, start_ns BIGINT, python_id BIGINT, python_parent_id BIGINT)
