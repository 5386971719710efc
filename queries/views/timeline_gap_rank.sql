-- Params: $min_gap_ns, $rank
-- Needs: schema
-- The GPU-idle gap over the threshold at a given rank by length (0 = the largest), and
-- how many such gaps there are.
-- Columns: device, start_ns, end_ns, duration_ns, gaps
SELECT device, start_ns, end_ns, duration_ns, count(*) OVER () AS gaps
FROM gpu_idle
WHERE duration_ns > $min_gap_ns
ORDER BY duration_ns DESC, start_ns, device
LIMIT 1 OFFSET $rank
