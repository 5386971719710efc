-- Params: $device, $min_gap_ns
-- Needs: schema
-- The GPU-idle gaps of device $device at least $min_gap_ns long, as intervals all keyed
-- 'gaps' (gpu_metric_means.sql).
-- Columns: key, start_ns, end_ns
SELECT 'gaps' AS key, start_ns, end_ns
FROM gpu_idle
WHERE device = $device AND duration_ns >= $min_gap_ns
