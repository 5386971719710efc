-- The points tui/sources/nesting.py looks up, into the temp table stacks_points (what,
-- point_id, runtime_id, pid, tid, t): each GPU activity ('launch') with the host call its
-- correlation id names (the first, should two share one), at that call's start; and each
-- memory event ('memory') at its time.
CREATE OR REPLACE TEMP TABLE stacks_points AS
SELECT 'launch' AS what, g.id AS point_id, r.id AS runtime_id, r.pid, r.tid, r.start_ns AS t
FROM gpu_activities AS g
JOIN (
    SELECT id, pid, tid, start_ns, correlation
    FROM host_activities
    WHERE kind = 'runtime' AND correlation IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY correlation ORDER BY id) = 1
) AS r USING (correlation)
UNION ALL
SELECT 'memory', id, NULL, pid, tid, ts_ns
FROM memory_events;
