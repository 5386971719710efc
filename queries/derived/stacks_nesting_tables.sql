-- Params: none
-- Needs: none
-- The temp tables tui/derived/stacks.py fills a window of time at a time from the nesting
-- of the host ranges, made empty: stacks_nesting_parents (id, parent_id: each frame's
-- enclosing frame, NULL at the top) and stacks_found (what, point_id, kind, host_id: each
-- point's innermost range of each kind, one row at most for each, added by
-- stacks_found_write.sql).
CREATE OR REPLACE TEMP TABLE stacks_nesting_parents (id BIGINT, parent_id BIGINT);
CREATE OR REPLACE TEMP TABLE stacks_found (
    what VARCHAR, point_id BIGINT, kind VARCHAR, host_id BIGINT);
