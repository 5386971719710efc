-- Params: $host, $min_gap_ns, $npc, $nvtx_depths, $t_hi, $t_lo
-- Needs: schema
-- The timeline's window binned to screen columns, straight from the activity tables.
-- Column c covers [c * $npc, (c + 1) * $npc) ns. For every lane and column: how long
-- something ran there (busy_ns, summed; the caller clamps to the column width) and the
-- interval with the largest piece of the column (top_*), so coarse zoom shows how busy
-- each slice was and which kernel dominated it, never a sample. Only intervals that
-- overlap [$t_lo, $t_hi) are read: the tables are stored sorted by start time, so the
-- start_ns/end_ns filters skip row groups by their min/max.
-- Given:  $npc (ns per column), $t_lo, $t_hi (= first column * $npc, end column * $npc),
--          $min_gap_ns (GPU-idle gaps longer than this get lane_kind 3 rows),
--          $nvtx_depths (annotation depths 0 .. n-1 are read; 0 = none), $host (bool)
-- Columns: lane_kind (0 GPU stream, 1 annotation, 2 host thread, 3 GPU-idle gap),
--          k1, k2, k3 (lane key, see timeline_lanes.sql; gaps: device, 0, 0), col,
--          busy_ns, top_ns, top_id (gpu_activities.id for 0, host_activities.id for 1-2),
--          top_name, top_kind
WITH spans AS (
    SELECT 0 AS lane_kind, device AS k1, stream AS k2, 0 AS k3, id, start_ns, end_ns
    FROM gpu_activities
    WHERE start_ns < $t_hi AND end_ns > $t_lo
    UNION ALL
    SELECT 1, pid, tid, depth, id, start_ns, end_ns
    FROM host_activities
    WHERE start_ns < $t_hi AND end_ns > $t_lo
      AND kind = 'annotation' AND depth < $nvtx_depths
    UNION ALL
    SELECT 2, pid, tid, 0, id, start_ns, end_ns
    FROM host_activities
    WHERE start_ns < $t_hi AND end_ns > $t_lo
      AND $host AND kind <> 'annotation' AND depth = 0
    UNION ALL
    SELECT 3, device, 0, 0, NULL, start_ns, end_ns
    FROM gpu_idle
    WHERE start_ns < $t_hi AND end_ns > $t_lo AND duration_ns > $min_gap_ns
), clipped AS (
    SELECT lane_kind, k1, k2, k3, id,
           greatest(start_ns, $t_lo) AS s, least(end_ns, $t_hi) AS e
    FROM spans
), cols AS (
    SELECT *, s // $npc AS c0, greatest(e - 1, s) // $npc AS c1 FROM clipped
), pieces AS (
    -- most intervals fall inside one column at coarse zoom: no need to unnest those
    SELECT lane_kind, k1, k2, k3, id, c0 AS col, e - s AS ns FROM cols WHERE c0 = c1
    UNION ALL
    SELECT lane_kind, k1, k2, k3, id, col,
           least(e, (col + 1) * $npc) - greatest(s, col * $npc) AS ns
    FROM (SELECT *, unnest(range(c0, c1 + 1)) AS col FROM cols WHERE c1 > c0)
), bins AS (
    SELECT lane_kind, k1, k2, k3, col, sum(ns) AS busy_ns, max(ns) AS top_ns,
           arg_max(id, ns) AS top_id
    FROM pieces
    GROUP BY ALL
), gpu_names AS (
    -- names of the top intervals only, read from the window's row groups only
    SELECT id, name, kind FROM gpu_activities
    WHERE start_ns < $t_hi AND end_ns > $t_lo
      AND id IN (SELECT top_id FROM bins WHERE lane_kind = 0)
), host_names AS (
    SELECT id, name, kind FROM host_activities
    WHERE start_ns < $t_hi AND end_ns > $t_lo
      AND id IN (SELECT top_id FROM bins WHERE lane_kind IN (1, 2))
)
SELECT b.lane_kind, b.k1, b.k2, b.k3, b.col, b.busy_ns, b.top_ns, b.top_id,
       coalesce(g.name, h.name) AS top_name, coalesce(g.kind, h.kind) AS top_kind
FROM bins AS b
LEFT JOIN gpu_names AS g ON b.lane_kind = 0 AND g.id = b.top_id
LEFT JOIN host_names AS h ON b.lane_kind IN (1, 2) AND h.id = b.top_id
