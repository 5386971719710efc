-- Params: $end_ns, $start_ns
-- Needs: temp table idle_causes
-- Per device and cause: the idle time and the number of intervals, from the temp table
-- idle_causes (idle_causes.sql), with the call the blocked intervals waited in most.
-- Within a window ($start_ns, $end_ns; NULL: the whole trace) each interval counts clipped
-- to it, and those it does not reach not at all.
-- Columns: device, cause, idle_ns, gaps, top_call (NULL when none).
WITH clipped AS (
    SELECT device, cause, blocked_in,
           least(start_ns + duration_ns, $end_ns) - greatest(start_ns, $start_ns) AS ns
    FROM idle_causes
)
SELECT device, cause, sum(ns)::BIGINT AS idle_ns, count(*) AS gaps,
       arg_max(blocked_in, ns) FILTER (WHERE blocked_in IS NOT NULL) AS top_call
FROM clipped
WHERE ns > 0
GROUP BY device, cause
ORDER BY device, cause;
