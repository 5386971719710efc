-- Queue length per stream, summed up from the temp table dist_queue_series
-- (dist_queue_series.sql): over its changes, as Holistic Trace Analysis 0.5.0's
-- get_queue_length_summary describes them (count, mean, median, max), and its mean over
-- time (each length weighted by how long it held).
-- Columns: device, stream, changes, mean, median, max, time_mean.
SELECT device, stream, count(*) AS changes, avg(queue) AS mean,
       quantile_cont(queue, 0.5) AS median, max(queue) AS max,
       sum(queue * (next_ns - t_ns)) / nullif(max(next_ns) - min(t_ns), 0) AS time_mean
FROM dist_queue_series
GROUP BY device, stream
ORDER BY device, stream;
