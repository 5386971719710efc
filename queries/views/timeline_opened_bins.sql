-- Params: $depth, $k3, $kind, $npc, $pid, $t_hi, $t_lo, $tid
-- Needs: schema
-- An opened lane's window binned to screen columns (as timeline_bins.sql bins the other
-- lanes): one kind of one host thread's ranges at one depth, which no other lane shows.
-- Column c covers [c * $npc, (c + 1) * $npc) ns.
-- Given:  $npc, $t_lo, $t_hi (= first column * $npc, end column * $npc),
--          $pid, $tid, $kind (host_activities.kind), $depth, $k3 (the lane's k3)
-- Columns: as timeline_bins.sql (lane_kind 7)
WITH clipped AS (
    SELECT id, greatest(start_ns, $t_lo) AS s, least(end_ns, $t_hi) AS e
    FROM host_activities
    WHERE start_ns < $t_hi AND end_ns > $t_lo
      AND pid = $pid AND tid = $tid AND kind = $kind AND depth = $depth
), cols AS (
    SELECT *, s // $npc AS c0, greatest(e - 1, s) // $npc AS c1 FROM clipped
), pieces AS (
    SELECT id, c0 AS col, e - s AS ns FROM cols WHERE c0 = c1
    UNION ALL
    SELECT id, col, least(e, (col + 1) * $npc) - greatest(s, col * $npc) AS ns
    FROM (SELECT *, unnest(range(c0, c1 + 1)) AS col FROM cols WHERE c1 > c0)
), bins AS (
    SELECT col, sum(ns) AS busy_ns, max(ns) AS top_ns, arg_max(id, ns) AS top_id
    FROM pieces
    GROUP BY col
)
SELECT 7 AS lane_kind, $pid AS k1, $tid AS k2, $k3 AS k3, b.col, b.busy_ns, b.top_ns,
       b.top_id, h.name AS top_name, h.kind AS top_kind
FROM bins AS b
JOIN host_activities AS h ON h.id = b.top_id
    AND h.start_ns < $t_hi AND h.end_ns > $t_lo  -- the window's row groups only
