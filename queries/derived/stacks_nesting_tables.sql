-- Params: none
-- Needs: none
-- The temp tables tui/derived/stacks.py fills a window of time at a time from the nesting
-- of the host ranges, made empty: stacks_nesting_parents (id, parent_id: each frame's
-- enclosing frame, NULL at the top) and stacks_found (is_memory, point_id, k, host_id: each
-- point's innermost range of each kind, one row at most for each, added by
-- stacks_found_write.sql; k is the kind's place in the kinds nested: 1 for 'cpu_op', 2 for
-- the kind python_frames is filled from).
CREATE OR REPLACE TEMP TABLE stacks_nesting_parents (id BIGINT, parent_id BIGINT);
CREATE OR REPLACE TEMP TABLE stacks_found (
    is_memory BOOLEAN, point_id BIGINT, k INTEGER, host_id BIGINT);
