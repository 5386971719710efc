-- Params: $pid, $tid
-- Needs: table host_range_activities, table host_ranges
-- How much of host_ranges one thread ($pid, $tid) was seen doing something: the union of
-- its CPU ops, Python frames and runtime calls (annotations are ranges the user marked,
-- not work, so they do not count) inside the ranges. Columns: range_ns (the ranges'
-- total), traced_ns.
WITH spans AS (
    SELECT greatest(start_ns, range_start) AS start_ns, least(end_ns, range_end) AS end_ns
    FROM host_range_activities
    WHERE kind IN ('cpu_op', 'python', 'runtime') AND pid = $pid AND tid = $tid
), ordered AS (
    SELECT start_ns, end_ns,
           max(end_ns) OVER (ORDER BY start_ns, end_ns
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
    FROM spans
), islands AS (
    SELECT start_ns, end_ns,
           sum(CASE WHEN reach IS NULL OR start_ns > reach THEN 1 ELSE 0 END)
               OVER (ORDER BY start_ns, end_ns ROWS UNBOUNDED PRECEDING) AS island
    FROM ordered
), merged AS (
    SELECT max(end_ns) - min(start_ns) AS ns FROM islands GROUP BY island
)
SELECT (SELECT coalesce(sum(end_ns - start_ns), 0) FROM host_ranges) AS range_ns,
       (SELECT coalesce(sum(ns), 0) FROM merged) AS traced_ns;
