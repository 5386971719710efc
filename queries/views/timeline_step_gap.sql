-- Params: $forward, $min_gap_ns, $t
-- Needs: schema
-- The next (or previous) GPU-idle gap over the threshold, on any device, from a time.
-- Given:  $t, $forward (bool: the first gap starting after $t, else the last before),
--          $min_gap_ns
-- Columns: device, start_ns, end_ns, duration_ns
SELECT device, start_ns, end_ns, duration_ns
FROM gpu_idle
WHERE duration_ns > $min_gap_ns
  AND CASE WHEN $forward THEN start_ns > $t ELSE start_ns < $t END
ORDER BY CASE WHEN $forward THEN start_ns ELSE -start_ns END, device
LIMIT 1
