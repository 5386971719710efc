-- Params: none
-- Needs: table finalize.host_rows
-- The host rows a loader staged, their depths set (tui/derived/host_depth.py) but not yet
-- written into host_activities (host_depth_write.sql, which a second connection runs
-- meanwhile), as the view finalize.stacks_nesting_host: the columns of host_activities
-- that the launch stacks' queries read (their {host}: stacks_nesting_count.sql,
-- stacks_python_frames.sql, ...), a row's id its row id, as host_depth_write.sql numbers it. A view of the attached database, not a temp
-- one: the nesting reads a window's ranges in parts, on cursors of their own.
CREATE OR REPLACE VIEW finalize.stacks_nesting_host AS
SELECT rowid AS id, kind, pid, tid, start_ns, end_ns, depth, name, correlation
FROM finalize.host_rows;
