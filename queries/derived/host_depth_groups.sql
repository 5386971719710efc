-- Params: none
-- Needs: table finalize.host_rows
-- The groups whose ranges nest (tui/derived/host_depth.py): each (kind, pid, tid) of the
-- host rows a loader staged, numbered 0, 1, ... In the attached `finalize` database, not a
-- temp table: a window's parts are read on cursors of their own, which see no temp table.
CREATE OR REPLACE TABLE finalize.host_depth_groups AS
SELECT kind, pid, tid, CAST(row_number() OVER () - 1 AS INTEGER) AS g
FROM (SELECT DISTINCT kind, pid, tid FROM finalize.host_rows);
