-- Params: $pid, $tid
-- Needs: table host_ranges
-- The OS runtime calls (os_calls) of one thread ($pid, $tid; NULL: every thread) that
-- overlap host_ranges, by name: how many calls, the time they held inside the ranges
-- (ns), and the longest call's whole duration. Largest time first.
SELECT o.name,
       count(DISTINCT (o.pid, o.tid, o.start_ns)) AS calls,
       sum(least(o.end_ns, r.end_ns) - greatest(o.start_ns, r.start_ns)) AS ns,
       max(o.duration_ns) AS longest_ns
FROM os_calls AS o
JOIN host_ranges AS r ON o.start_ns < r.end_ns AND o.end_ns > r.start_ns
WHERE $tid IS NULL OR (o.pid = $pid AND o.tid = $tid)
GROUP BY o.name
ORDER BY ns DESC, o.name;
