-- Params: $device, $names, {intervals}
-- Needs: schema
-- The mean of each GPU metric named in $names over the samples of device $device that fall
-- inside intervals, per key: a sample counts once for a key however many of its intervals
-- hold it (instances of one kernel on two streams, nested ranges of one name). An interval
-- [start_ns, end_ns) holds the samples taken at start_ns and up to end_ns.
-- Each interval finds its first and last sampling time by two ASOF joins over the numbered
-- sampling times (one per period, shared by the metrics sampled together) and takes the
-- numbers between: no interval is compared with every sampling time (a range join of the
-- two ran quadratic on 9,250 kernels and 76,000 sampling times: 8 CPU-s).
-- Given:  {intervals} a query of (key, start_ns, end_ns) on the device ($device), e.g.
--         gpu_metric_kernels.sql
-- Columns: key, name, mean, samples
WITH wanted AS (
    SELECT metric_id, name FROM gpu_metric_names
    WHERE device = $device AND list_contains($names, name)
),
stamps AS (
    SELECT ts_ns, row_number() OVER (ORDER BY ts_ns) AS n
    FROM (
        SELECT DISTINCT g.ts_ns
        FROM gpu_metrics AS g
        SEMI JOIN wanted AS w ON w.metric_id = g.metric_id
        WHERE g.device = $device
    )
),
i AS ({intervals}),
bounds AS (
    -- first: the first sampling time at or after the start; past: the first at or after
    -- the end (none: past the last one)
    SELECT i.key, first.n AS first_n,
           coalesce(past.n, (SELECT count(*) FROM stamps) + 1) AS past_n
    FROM i
    ASOF JOIN stamps AS first ON i.start_ns <= first.ts_ns
    ASOF LEFT JOIN stamps AS past ON i.end_ns <= past.ts_ns
),
inside AS (
    SELECT DISTINCT key, unnest(range(first_n, past_n)) AS n
    FROM bounds
    WHERE past_n > first_n
)
SELECT inside.key, w.name, avg(g.value) AS mean, count(*) AS samples
FROM inside
JOIN stamps AS s ON s.n = inside.n
JOIN gpu_metrics AS g ON g.ts_ns = s.ts_ns
JOIN wanted AS w ON w.metric_id = g.metric_id
WHERE g.device = $device
GROUP BY inside.key, w.name
ORDER BY inside.key, w.name;
