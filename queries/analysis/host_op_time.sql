-- Params: $pid, $tid
-- Needs: table host_range_activities
-- Traces without CPU samples: the time the CPU ops of one thread ($pid, $tid; NULL: every
-- thread) spent inside host_ranges (their rows of host_range_activities.sql), each op's
-- own time (its time in the ranges less that of the ops one level inside it), by name.
-- Columns: name, ns; largest first. An op's parent is the op one level up on its thread
-- that started last before it (ops of one level never overlap): an as-of join, not a
-- comparison of every pair.
WITH clipped AS (
    SELECT id, pid, tid, depth, name, start_ns, end_ns, range_start,
           least(end_ns, range_end) - greatest(start_ns, range_start) AS ns
    FROM host_range_activities
    WHERE kind = 'cpu_op' AND ($tid IS NULL OR (pid = $pid AND tid = $tid))
), inner_time AS (
    SELECT o.id, o.range_start, sum(i.ns) AS inner_ns
    FROM clipped AS i
    ASOF JOIN clipped AS o
      ON o.pid = i.pid AND o.tid = i.tid AND o.depth = i.depth - 1
     AND o.range_start = i.range_start AND o.start_ns <= i.start_ns
    WHERE i.end_ns <= o.end_ns
    GROUP BY o.id, o.range_start
)
SELECT c.name, sum(c.ns - coalesce(t.inner_ns, 0)) AS ns
FROM clipped AS c
LEFT JOIN inner_time AS t USING (id, range_start)
GROUP BY c.name
HAVING sum(c.ns - coalesce(t.inner_ns, 0)) > 0
ORDER BY ns DESC, c.name;
