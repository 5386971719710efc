-- Params: none
-- Needs: temp table idle_causes
-- Per device and cause: the idle time and the number of intervals, from the temp table
-- idle_causes (idle_causes.sql), with the call the blocked intervals waited in most.
-- Columns: device, cause, idle_ns, gaps, top_call (NULL when none).
SELECT device, cause, sum(duration_ns)::BIGINT AS idle_ns, count(*) AS gaps,
       arg_max(blocked_in, duration_ns) FILTER (WHERE blocked_in IS NOT NULL) AS top_call
FROM idle_causes
GROUP BY device, cause
ORDER BY device, cause;
