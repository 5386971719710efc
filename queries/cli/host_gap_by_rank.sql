-- Params: $min_gap_ns, $rank
-- Needs: schema
-- The $rank-th longest GPU-idle gap over $min_gap_ns (1 = the longest; the order of the
-- summary's gaps and the Gaps tab, gaps_selected.sql). Columns: start_ns, end_ns, device.
SELECT start_ns, end_ns, device
FROM gpu_idle
WHERE duration_ns > $min_gap_ns
ORDER BY duration_ns DESC, start_ns, device
LIMIT 1 OFFSET $rank - 1;
