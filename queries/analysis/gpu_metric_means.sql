-- Params: $device, $names, {intervals}
-- Needs: schema
-- The mean of each GPU metric named in $names over the samples of device $device that fall
-- inside intervals, per key: a sample counts once for a key however many of its intervals
-- hold it (instances of one kernel on two streams, nested ranges of one name). An interval
-- [start_ns, end_ns) holds the samples taken at start_ns and up to end_ns.
-- The intervals meet the sampling times (one per period, shared by the metrics sampled
-- together), not every sample: a tenth of the rows in the range join; the samples are
-- then found by their time (gpu_metrics read twice: a CTE read twice is kept whole).
-- Given:  {intervals} a query of (key, start_ns, end_ns) on the device ($device), e.g.
--         gpu_metric_kernels.sql
-- Columns: key, name, mean, samples
WITH wanted AS (
    SELECT metric_id, name FROM gpu_metric_names
    WHERE device = $device AND list_contains($names, name)
),
stamps AS (
    SELECT DISTINCT g.ts_ns
    FROM gpu_metrics AS g
    SEMI JOIN wanted AS w ON w.metric_id = g.metric_id
    WHERE g.device = $device
),
i AS ({intervals}),
inside AS (
    SELECT DISTINCT i.key, s.ts_ns
    FROM stamps AS s
    JOIN i ON s.ts_ns >= i.start_ns AND s.ts_ns < i.end_ns
)
SELECT inside.key, w.name, avg(g.value) AS mean, count(*) AS samples
FROM inside
JOIN gpu_metrics AS g ON g.ts_ns = inside.ts_ns
JOIN wanted AS w ON w.metric_id = g.metric_id
WHERE g.device = $device
GROUP BY inside.key, w.name
ORDER BY inside.key, w.name;
