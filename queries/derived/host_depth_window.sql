-- Params: $since, $until
-- Needs: table finalize.host_depth_groups, table finalize.host_rows
-- The staged host rows that start in [$since, $until): row id, group (host_depth_groups),
-- start and end, in no particular order (tui/derived/host_depth.py sorts them).
SELECT h.rowid AS row, g.g, h.start_ns, h.end_ns
FROM finalize.host_rows AS h
JOIN finalize.host_depth_groups AS g
  ON h.kind = g.kind AND h.pid IS NOT DISTINCT FROM g.pid
 AND h.tid IS NOT DISTINCT FROM g.tid
WHERE h.start_ns >= $since AND h.start_ns < $until;
