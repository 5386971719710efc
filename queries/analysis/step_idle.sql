-- Params: $ends, $starts
-- Needs: temp table idle_causes
-- Each device's idle time by cause within the given steps ($starts, $ends: host ranges
-- that do not overlap, tui/analysis/step_times.py), each idle interval of the temp table
-- idle_causes (idle_causes.sql) clipped to each step it overlaps.
-- Columns: device, cause, idle_ns.
WITH steps AS (
    SELECT unnest($starts::BIGINT[]) AS start_ns, unnest($ends::BIGINT[]) AS end_ns
)
SELECT i.device, i.cause,
       sum(least(i.start_ns + i.duration_ns, s.end_ns)
           - greatest(i.start_ns, s.start_ns))::BIGINT AS idle_ns
FROM idle_causes AS i
JOIN steps AS s ON i.start_ns < s.end_ns AND i.start_ns + i.duration_ns > s.start_ns
GROUP BY i.device, i.cause
ORDER BY i.device, i.cause;
