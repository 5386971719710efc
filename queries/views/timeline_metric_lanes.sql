-- Params: none
-- Needs: schema
-- The GPU metrics each device sampled, with how many samples and the sampling period (the
-- median over metrics of the time between two samples), for the metric lanes.
-- Columns: device, metric_id, name, samples, period_ns
SELECT n.device, n.metric_id, n.name, s.samples, s.period_ns
FROM gpu_metric_names AS n
JOIN (
    SELECT device, metric_id, count(*) AS samples,
           (max(ts_ns) - min(ts_ns)) // greatest(count(*) - 1, 1) AS period_ns
    FROM gpu_metrics
    GROUP BY device, metric_id
) AS s USING (device, metric_id)
ORDER BY n.device, n.metric_id;
