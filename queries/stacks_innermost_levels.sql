-- The second half after stacks_last_started.sql: for the points whose last-started range
-- has ended, one ASOF join per level above it finds each level's last range before the
-- point, and the deepest still open is the innermost; into the temp table stacks_found
-- (what, point_id, kind, host_id), as stacks_innermost.sql's sweep fills it.
CREATE OR REPLACE TEMP TABLE stacks_found AS
WITH enclosing AS (
    SELECT l.p, l.k, l.pid, l.tid, l.t, d.level
    FROM stacks_last_started AS l
    CROSS JOIN LATERAL (SELECT generate_series AS level
                        FROM generate_series(0, l.depth - 1)) AS d
    WHERE l.end_ns <= l.t AND l.depth > 0
), by_level AS (
    SELECT e.p, e.k, r.id, r.depth
    FROM enclosing AS e
    ASOF JOIN stacks_ranges AS r
        ON r.k = e.k AND r.pid = e.pid AND r.tid = e.tid AND r.depth = e.level
       AND r.start_ns <= e.t
    WHERE r.end_ns > e.t
), found AS (
    SELECT p, k, id AS host_id FROM stacks_last_started WHERE end_ns > t
    UNION ALL
    SELECT p, k, arg_max(id, depth) FROM by_level GROUP BY p, k
)
SELECT s.what, s.point_id, $kinds[f.k] AS kind, f.host_id
FROM found AS f
JOIN (SELECT rowid AS p, what, point_id FROM stacks_points) AS s USING (p);
