-- Params: $pid, $tid
-- Needs: table host_ranges
-- How long thread ($pid, $tid) ran on a CPU inside host_ranges (thread_sched); NULL where
-- the trace recorded no context switches. Columns: on_cpu_ns.
SELECT CASE WHEN (SELECT count(*) FROM thread_sched) = 0 THEN NULL
            ELSE coalesce(sum(least(s.end_ns, r.end_ns) - greatest(s.start_ns, r.start_ns)), 0)
       END AS on_cpu_ns
FROM thread_sched AS s
JOIN host_ranges AS r ON s.start_ns < r.end_ns AND s.end_ns > r.start_ns
WHERE s.pid = $pid AND s.tid = $tid;
