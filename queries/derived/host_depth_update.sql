-- Params: $since, $until
-- Needs: table finalize.host_rows, arrow host_depth_window_rows
-- Set the depths tui/derived/host_depth.py found for the staged host rows that start in
-- [$since, $until) (host_depth_window.sql read them): host_depth_window_rows (row, depth),
-- one per row id. The time bounds let the update look up only that window's rows.
UPDATE finalize.host_rows AS h
SET depth = w.depth
FROM host_depth_window_rows AS w
WHERE h.rowid = w.row AND h.start_ns >= $since AND h.start_ns < $until;
