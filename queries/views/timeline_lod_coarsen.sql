-- Params: $factor, $level
-- Needs: table timeline_lod.bins
-- One more level of the level-of-detail summary: $factor bins of level $level - 1 summed
-- into one bin of level $level.
INSERT INTO timeline_lod.bins
SELECT $level, lane_kind, k1, k2, k3, col // $factor AS col, sum(busy_ns), max(top_ns),
       arg_max(top, top_ns)
FROM timeline_lod.bins
WHERE level = $level - 1
GROUP BY ALL
ORDER BY col
