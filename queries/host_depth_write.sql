INSERT INTO host_activities
SELECT h.rowid AS id, h.*, d.depth
FROM finalize.host_rows AS h
POSITIONAL JOIN (SELECT depth FROM host_depth_rows ORDER BY row) AS d;

DROP TABLE finalize.host_rows;
DROP TABLE host_depth_rows;
DROP TABLE host_depth_groups;
