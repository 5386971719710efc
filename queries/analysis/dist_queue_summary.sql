-- Params: none
-- Needs: temp table dist_queue_series
-- Queue length per stream, summed up from the temp table dist_queue_series
-- (dist_queue_series.sql): over its changes, as Holistic Trace Analysis 0.5.0's
-- get_queue_length_summary describes them (count, mean, median, max), and its mean over
-- time (each length weighted by how long it held).
-- In one pass over the series, by each length a stream held (few), then per stream: the
-- median is quantile_cont's (linear between the ranks either side of (n - 1) / 2) from
-- those counts, not from every change held at once (a 3 GB nsys export's 31M changes ran
-- out of the summary's 286 MiB that way).
-- Columns: device, stream, changes, mean, median, max, time_mean.
WITH lengths AS (  -- each length a stream held: how often, and for how long in all
    SELECT device, stream, queue, count(*) AS n,
           sum(queue * (next_ns - t_ns)) AS weighted, min(t_ns) AS first_ns,
           max(next_ns) AS last_ns
    FROM dist_queue_series
    GROUP BY device, stream, queue
), ranked AS (  -- up_to: how many changes left a length no longer; pos: the median's rank
    SELECT *, sum(n) OVER (PARTITION BY device, stream ORDER BY queue) AS up_to,
           (sum(n) OVER (PARTITION BY device, stream) - 1) / 2 AS pos
    FROM lengths
), streams AS (
    SELECT device, stream, sum(n) AS changes, sum(queue * n) / sum(n) AS mean,
           min(queue) FILTER (WHERE up_to > floor(pos)) AS below,
           min(queue) FILTER (WHERE up_to > ceil(pos)) AS above,
           any_value(pos - floor(pos)) AS frac, max(queue) AS max,
           sum(weighted) / nullif(max(last_ns) - min(first_ns), 0) AS time_mean
    FROM ranked
    GROUP BY device, stream
)
SELECT device, stream, changes, mean, below + (above - below) * frac AS median, max,
       time_mean
FROM streams
ORDER BY device, stream;
