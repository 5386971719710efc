-- Params: $kernel_wait_ns
-- Needs: temp table dist_work
-- Idle time per stream in Holistic Trace Analysis 0.5.0's categories (breakdown_analysis.py
-- get_idle_time_breakdown) over dist_work (dist_work.sql): on each stream, the time from
-- one activity's end to the next one's start (activities by start). Host wait: the next
-- activity's launch call began after the previous activity ended (the host had not queued
-- it yet); kernel wait: otherwise, when the gap is under $kernel_wait_ns (back-to-back
-- launch overhead); other: the rest (waiting for another stream or event, say).
-- "The previous activity's end" is the latest end of those before it on the stream: an
-- activity that starts while an earlier one still runs (XLA profiles record such overlaps
-- on one stream) leaves no idle time, where the previous one's end alone gave a negative
-- gap.
-- Columns: device, stream, host_wait_ns, kernel_wait_ns, other_ns, gaps.
WITH ordered AS (
    SELECT device, stream, start_ns, call_start_ns,
           max(end_ns) OVER (PARTITION BY device, stream ORDER BY start_ns, end_ns
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end_ns
    FROM dist_work
), gaps AS (
    SELECT device, stream, greatest(start_ns - prev_end_ns, 0) AS gap_ns,
           CASE WHEN call_start_ns > prev_end_ns THEN 'host_wait'
                WHEN start_ns - prev_end_ns < $kernel_wait_ns THEN 'kernel_wait'
                ELSE 'other' END AS category
    FROM ordered
    WHERE prev_end_ns IS NOT NULL
)
SELECT device, stream,
       coalesce(sum(gap_ns) FILTER (WHERE category = 'host_wait'), 0)::BIGINT AS host_wait_ns,
       coalesce(sum(gap_ns) FILTER (WHERE category = 'kernel_wait'), 0)::BIGINT AS kernel_wait_ns,
       coalesce(sum(gap_ns) FILTER (WHERE category = 'other'), 0)::BIGINT AS other_ns,
       count(*) AS gaps
FROM gaps
GROUP BY device, stream
ORDER BY device, stream;
