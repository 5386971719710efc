-- The points tui/sources/nesting.py looks up, into the temp table stacks_points (what,
-- point_id, runtime_id, pid, tid, t): each GPU activity ('launch') with the host call its
-- correlation id names (the first, should two share one), at that call's start; and each
-- memory event ('memory') at its time. Grouped by the GPU activity, after the join: a
-- trace has many more runtime calls than activities (an nsys report: 40M beside 16M), and
-- picking each correlation's first call among all of them first took three times as long.
-- Stored in time order: the nesting reads the points a window of time at a time, and in
-- time order each window's read skips the rest (a 3 GB nsys export: 9.2 s -> 1.5 s for
-- the reads, and the sort costs less than it saves in the joins after).
CREATE OR REPLACE TEMP TABLE stacks_points AS
FROM (
    SELECT 'launch' AS what, g.id AS point_id, min(r.id) AS runtime_id,
           arg_min(r.pid, r.id) AS pid, arg_min(r.tid, r.id) AS tid,
           arg_min(r.start_ns, r.id) AS t
    FROM gpu_activities AS g
    JOIN host_activities AS r ON r.correlation = g.correlation AND r.kind = 'runtime'
    GROUP BY g.id
    UNION ALL
    SELECT 'memory', id, NULL, pid, tid, ts_ns
    FROM memory_events
)
ORDER BY t;
