-- Params: $device
-- Needs: schema
-- The kernels of device $device as intervals keyed by name (gpu_metric_means.sql).
-- Columns: key, start_ns, end_ns
SELECT name AS key, start_ns, end_ns
FROM gpu_activities
WHERE kind = 'kernel' AND device = $device
