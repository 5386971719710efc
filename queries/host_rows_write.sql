-- Write the host rows finalize_host_rows_depths.sql copied out (depths included),
-- numbered by their row id: host_depth.sql without the depth computation.
INSERT INTO host_activities
SELECT rowid AS id, * FROM finalize.host_rows;

DROP TABLE finalize.host_rows;
