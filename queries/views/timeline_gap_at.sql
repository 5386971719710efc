-- Params: $device, $min_gap_ns, $t, $t_hi, $t_lo
-- Needs: schema
-- The GPU-idle gap over the threshold (as in gpu_idle) on a device that the cursor's
-- column touches, with the names of the activities either side of it.
-- Given:  $device, $t (cursor time), $t_lo, $t_hi (its column), $min_gap_ns
-- Columns: device, start_ns, end_ns, duration_ns, before_name, after_name
SELECT i.device, i.start_ns, i.end_ns, i.duration_ns, b.name AS before_name,
       a.name AS after_name
FROM gpu_idle AS i
LEFT JOIN gpu_activities AS b ON b.id = i.before_id
LEFT JOIN gpu_activities AS a ON a.id = i.after_id
WHERE i.device = $device AND i.duration_ns > $min_gap_ns
  AND i.start_ns < $t_hi AND i.end_ns > $t_lo
ORDER BY (i.start_ns <= $t AND i.end_ns > $t) DESC, i.duration_ns DESC
LIMIT 1
