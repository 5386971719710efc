-- Params: none
-- Needs: schema
-- The devices with GPU metrics: how many samples of how many metrics, and the sampling
-- rate (the samples of one metric over the time they cover, the median over metrics).
-- Columns: device, metrics, samples, rate_hz
SELECT device, count(*) AS metrics, sum(n) AS samples,
       median(CASE WHEN last_ns > first_ns THEN (n - 1) * 1e9 / (last_ns - first_ns) END)
           AS rate_hz
FROM (
    SELECT device, metric_id, count(*) AS n, min(ts_ns) AS first_ns, max(ts_ns) AS last_ns
    FROM gpu_metrics
    GROUP BY device, metric_id
)
GROUP BY device
ORDER BY device;
