-- Write the host rows finalize_activities.sql numbered, with their nesting depth: how
-- many ranges of the same kind on the same thread are open when a range starts. A running
-- sum over start (+1) and end (-1) points; at equal times, ends close before starts open,
-- and longer ranges open first. The depths, sorted by id, pair with the rows by position
-- (the rows are stored in id order): no join, and no sort of the rows themselves.
INSERT INTO host_activities
WITH points AS (
    SELECT id, kind, pid, tid, start_ns AS t, 1 AS delta, 1 AS tie, end_ns
    FROM finalize_host_rows
    UNION ALL
    SELECT id, kind, pid, tid, end_ns AS t, -1 AS delta,
           CASE WHEN end_ns > start_ns THEN 0 ELSE 2 END AS tie, end_ns
    FROM finalize_host_rows
), depths AS (
    SELECT id, open_now - 1 AS depth
    FROM (
        SELECT id, delta,
               sum(delta) OVER (
                   PARTITION BY kind, pid, tid
                   ORDER BY t, tie, end_ns DESC, id
                   ROWS UNBOUNDED PRECEDING
               ) AS open_now
        FROM points
    )
    WHERE delta = 1
)
SELECT h.*, d.depth
FROM finalize_host_rows AS h
POSITIONAL JOIN (SELECT depth FROM depths ORDER BY id) AS d;

DROP TABLE finalize_host_rows;
