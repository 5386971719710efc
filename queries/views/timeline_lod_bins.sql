-- Params: $c_hi, $c_lo, $factor, $host, $level, $nvtx_depths
-- Needs: table timeline_lod.bins
-- The timeline's window from the level-of-detail summary (timeline_lod.bins, built from
-- timeline_bins.sql at a fine fixed width), for zoom levels where a column spans many
-- summary bins: $factor bins of level $level make one column, exactly (the caller keeps
-- $npc a multiple of the level's bin width), so busy_ns is exact and top_* is the longest
-- piece among the column's bins. Reads at most ($c_hi - $c_lo) * $factor rows per lane.
-- Given:  $level, $factor, $c_lo, $c_hi (columns, half-open), $nvtx_depths, $host
-- Columns: as timeline_bins.sql
SELECT lane_kind, k1, k2, k3, col, busy_ns, top_ns,
       t.id AS top_id, t.name AS top_name, t.kind AS top_kind
FROM (
    SELECT lane_kind, k1, k2, k3, col // $factor AS col, sum(busy_ns) AS busy_ns,
           max(top_ns) AS top_ns, arg_max(top, top_ns) AS t
    FROM timeline_lod.bins
    WHERE level = $level AND col >= $c_lo::BIGINT * $factor AND col < $c_hi::BIGINT * $factor
      AND (lane_kind IN (0, 3) OR (lane_kind = 1 AND k3 < $nvtx_depths)
           OR (lane_kind = 2 AND $host))
    GROUP BY ALL
)
