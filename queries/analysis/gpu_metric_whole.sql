-- Params: $device
-- Needs: schema
-- The span of device $device's GPU work, first start to last end, as one interval keyed
-- 'whole' (gpu_metric_means.sql): set-up before the first kernel and the tail after the
-- last are left out.
-- Columns: key, start_ns, end_ns
SELECT 'whole' AS key, min(start_ns) AS start_ns, max(end_ns) AS end_ns
FROM gpu_activities
WHERE device = $device
HAVING count(*) > 0
