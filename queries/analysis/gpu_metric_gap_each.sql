-- Params: $device, $limit, $min_gap_ns
-- Needs: schema
-- The $limit longest GPU-idle gaps of device $device at least $min_gap_ns long, each an
-- interval keyed by its start (gpu_metric_means.sql).
-- Columns: key, start_ns, end_ns
SELECT CAST(start_ns AS VARCHAR) AS key, start_ns, end_ns
FROM gpu_idle
WHERE device = $device AND duration_ns >= $min_gap_ns
ORDER BY duration_ns DESC, start_ns
LIMIT $limit
