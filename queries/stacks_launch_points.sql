-- The points stacks_innermost.sql looks up for launches: each GPU activity with the host
-- call its correlation id names (the first, should two share one), at that call's start.
CREATE OR REPLACE TEMP TABLE stacks_points AS
SELECT g.id AS point_id, r.id AS runtime_id, r.pid, r.tid, r.start_ns AS t
FROM gpu_activities AS g
JOIN (
    SELECT id, pid, tid, start_ns, correlation
    FROM host_activities
    WHERE kind = 'runtime' AND correlation IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY correlation ORDER BY id) = 1
) AS r USING (correlation);
