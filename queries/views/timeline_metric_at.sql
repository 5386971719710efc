-- Params: $device, $names, $reach_ns, $t, $t_hi, $t_lo
-- Needs: schema
-- The GPU metrics under the cursor on device $device: each metric named in $names, the
-- mean of its samples in the cursor's column [$t_lo, $t_hi), else the first sample at or
-- after $t (within $reach_ns: its sampling period holds $t).
-- Columns: name, mean, samples
WITH wanted AS (
    SELECT metric_id, name FROM gpu_metric_names
    WHERE device = $device AND list_contains($names, name)
),
inside AS (
    SELECT metric_id, avg(value) AS mean, count(*) AS samples
    FROM gpu_metrics
    WHERE device = $device AND ts_ns >= $t_lo AND ts_ns < $t_hi
    GROUP BY metric_id
),
after AS (
    SELECT metric_id, arg_min(value, ts_ns) AS mean, 1 AS samples
    FROM gpu_metrics
    WHERE device = $device AND ts_ns >= $t AND ts_ns < $t + $reach_ns
    GROUP BY metric_id
)
SELECT w.name, coalesce(i.mean, a.mean) AS mean, coalesce(i.samples, a.samples, 0) AS samples
FROM wanted AS w
LEFT JOIN inside AS i USING (metric_id)
LEFT JOIN after AS a USING (metric_id)
ORDER BY list_position($names, w.name);
