-- Params: none
-- Needs: temp table dist_work
-- The launch delays' quantiles of dist_launch_stats.sql (p50, p90, p99: quantile_cont's,
-- linear between the ranks either side of q * (n - 1)) for a trace whose delays are too
-- many to hold at once: found from the count of each distinct delay. Per device and over
-- the whole trace (device NULL).
-- Columns: device, delay_ns_quantiles ([p50, p90, p99]).
WITH launched AS (
    SELECT device, greatest(start_ns - call_end_ns, 0) AS delay_ns
    FROM dist_work
    WHERE stat_launch
), delays AS (  -- each distinct delay with its count, per device and over all (device NULL)
    SELECT device, delay_ns, count(*) AS n
    FROM launched
    WHERE delay_ns IS NOT NULL
    GROUP BY GROUPING SETS ((device, delay_ns), (delay_ns))
), ranked AS (  -- the delays in order: up_to, how many are no longer; total, how many
    SELECT device, delay_ns, sum(n) OVER (PARTITION BY device ORDER BY delay_ns) AS up_to,
           sum(n) OVER (PARTITION BY device) AS total
    FROM delays
), wanted AS (  -- the 0-based ranks either side of each quantile's position
    SELECT DISTINCT r.device, q.i, q.q * (r.total - 1) AS pos
    FROM ranked AS r, (VALUES (1, 0.5::DOUBLE), (2, 0.9::DOUBLE), (3, 0.99::DOUBLE)) AS q(i, q)
), quantiles AS (
    SELECT w.device, w.i,
           min(r.delay_ns) FILTER (WHERE r.up_to > floor(w.pos)) AS lo,
           min(r.delay_ns) FILTER (WHERE r.up_to > ceil(w.pos)) AS hi,
           any_value(w.pos - floor(w.pos)) AS frac
    FROM wanted AS w
    JOIN ranked AS r ON r.device IS NOT DISTINCT FROM w.device
    GROUP BY w.device, w.i
)
SELECT device, list(lo + (hi - lo) * frac ORDER BY i) AS delay_ns_quantiles
FROM quantiles
GROUP BY device;
