-- Write the staged host rows out, numbered by their row id, with the depths
-- tui/sources/host_depth.py found (host_depth_rows: one per row id). The depths, sorted by
-- row id, pair with the rows by position (the rows are stored in row id order): no join.
-- Straight into host_activities: a temp table in between, for a parallel write, cost more
-- than it saved.
INSERT INTO host_activities
SELECT h.rowid AS id, h.kind, h.pid, h.tid, h.start_ns, h.end_ns, h.duration_ns, h.name,
       h.correlation, d.depth
FROM finalize.host_rows AS h
POSITIONAL JOIN (SELECT depth FROM host_depth_rows ORDER BY row) AS d;

DROP TABLE host_depth_rows;
DROP TABLE host_depth_groups;
