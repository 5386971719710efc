-- Params: $device, $names, {intervals}
-- Needs: schema
-- The mean of each GPU metric named in $names over the samples of device $device that fall
-- inside intervals, per key: a sample counts once for a key however many of its intervals
-- hold it (instances of one kernel on two streams, nested ranges of one name). An interval
-- [start_ns, end_ns) holds the samples taken at start_ns and up to end_ns.
-- Given:  {intervals} a query of (key, start_ns, end_ns) on the device ($device), e.g.
--         gpu_metric_kernels.sql
-- Columns: key, name, mean, samples
WITH m AS (
    SELECT g.metric_id, n.name, g.ts_ns, g.value
    FROM gpu_metrics AS g
    JOIN gpu_metric_names AS n ON n.device = g.device AND n.metric_id = g.metric_id
    WHERE g.device = $device AND list_contains($names, n.name)
),
i AS ({intervals}),
inside AS (
    SELECT DISTINCT i.key, m.metric_id, m.name, m.ts_ns, m.value
    FROM m
    JOIN i ON m.ts_ns >= i.start_ns AND m.ts_ns < i.end_ns
)
SELECT key, name, avg(value) AS mean, count(*) AS samples
FROM inside
GROUP BY key, name
ORDER BY key, name;
