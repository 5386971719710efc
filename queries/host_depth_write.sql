-- Write the staged host rows that start in [$since, $until) into host_activities, numbered
-- by their row id, with the depths tui/sources/host_depth.py found for them
-- (host_depth_window_rows: row, depth; one per row id). A window's rows go out as soon as
-- their depths are known: setting the depths on the staged rows first (an UPDATE) and
-- copying every row at the end cost a second pass over them.
INSERT INTO host_activities
SELECT h.rowid AS id, h.kind, h.pid, h.tid, h.start_ns, h.end_ns, h.duration_ns, h.name,
       h.correlation, w.depth
FROM finalize.host_rows AS h
JOIN host_depth_window_rows AS w ON h.rowid = w.row
WHERE h.start_ns >= $since AND h.start_ns < $until;
