-- Params: none
-- Needs: table finalize.host_rows
-- The host rows a loader staged, copied out (finalize_host_rows.sql) but not yet written
-- into host_activities (their depths are worked out meanwhile, beside), as the temp view
-- stacks_points_host: the columns of host_activities that stacks_points_launches.sql
-- reads, a row's id its row id, as host_depth_write.sql numbers it.
CREATE OR REPLACE TEMP VIEW stacks_points_host AS
SELECT rowid AS id, kind, pid, tid, start_ns, correlation
FROM finalize.host_rows;
