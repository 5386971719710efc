-- Traces without CPU samples: the time the CPU ops of one thread ($pid, $tid; NULL: every
-- thread) spent inside host_ranges, each op's own time (its time in the ranges less that
-- of the ops one level inside it), by name. Columns: name, ns; largest first.
WITH clipped AS (
    SELECT h.id, h.pid, h.tid, h.depth, h.name, h.start_ns, h.end_ns,
           r.start_ns AS range_start,
           least(h.end_ns, r.end_ns) - greatest(h.start_ns, r.start_ns) AS ns
    FROM host_activities AS h
    JOIN host_ranges AS r ON h.start_ns < r.end_ns AND h.end_ns > r.start_ns
    WHERE h.kind = 'cpu_op' AND ($tid IS NULL OR (h.pid = $pid AND h.tid = $tid))
), inner_time AS (
    SELECT o.id, o.range_start, sum(i.ns) AS inner_ns
    FROM clipped AS o
    JOIN clipped AS i
      ON i.pid = o.pid AND i.tid = o.tid AND i.depth = o.depth + 1
     AND i.range_start = o.range_start
     AND i.start_ns >= o.start_ns AND i.end_ns <= o.end_ns
    GROUP BY o.id, o.range_start
)
SELECT c.name, sum(c.ns - coalesce(t.inner_ns, 0)) AS ns
FROM clipped AS c
LEFT JOIN inner_time AS t USING (id, range_start)
GROUP BY c.name
HAVING sum(c.ns - coalesce(t.inner_ns, 0)) > 0
ORDER BY ns DESC, c.name;
