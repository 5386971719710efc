-- Queue length per stream, summed up (as dist_queue_series.sql defines it, worked out
-- here in one statement): over its changes, as Holistic Trace Analysis 0.5.0's
-- get_queue_length_summary describes them (count, mean, median, max), and its mean over
-- time (each length weighted by how long it held).
-- Columns: device, stream, changes, mean, median, max, time_mean.
WITH launched AS (
    SELECT device, stream, call_start_ns, start_ns
    FROM dist_work
    WHERE queued
), changes AS (
    SELECT device, stream, call_start_ns AS t_ns, 1 AS step, 0 AS tie FROM launched
    UNION ALL
    SELECT device, stream, start_ns AS t_ns, -1 AS step, 1 AS tie FROM launched
), series AS (
    SELECT device, stream, t_ns, tie,
           sum(step) OVER (PARTITION BY device, stream ORDER BY t_ns, tie
                           ROWS UNBOUNDED PRECEDING) AS queue
    FROM changes
), queue_series AS (
    SELECT device, stream, t_ns, queue::INTEGER AS queue,
           lead(t_ns) OVER (PARTITION BY device, stream ORDER BY t_ns, tie) AS next_ns
    FROM series
)
SELECT device, stream, count(*) AS changes, avg(queue) AS mean,
       quantile_cont(queue, 0.5) AS median, max(queue) AS max,
       sum(queue * (next_ns - t_ns)) / nullif(max(next_ns) - min(t_ns), 0) AS time_mean
FROM queue_series
GROUP BY device, stream
ORDER BY device, stream;
