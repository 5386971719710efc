-- Write the host rows finalize_host_rows.sql copied out, numbered by their row id, with
-- their nesting depth: how many ranges of the same kind on the same thread are open when a
-- range starts. A running sum over start (+1) and end (-1) points; at equal times, ends
-- close before starts open, and longer ranges open first.
-- The points are sorted once, by thread and then time, and summed by a streaming window
-- over that order: each thread's points sum to zero, so a sum over all threads at once
-- equals one per thread (a PARTITION BY window would sort them again, twice as slow).
-- The depths, sorted by id, pair with the rows by position (the rows are stored in id
-- order): no join, and no sort of the rows themselves.
CREATE OR REPLACE TEMP TABLE finalize_host_depths AS
WITH points AS (
    SELECT rowid AS id, kind, pid, tid, start_ns AS t, 1 AS delta, 1 AS tie, end_ns
    FROM finalize.host_rows
    UNION ALL
    SELECT rowid AS id, kind, pid, tid, end_ns AS t, -1 AS delta,
           CASE WHEN end_ns > start_ns THEN 0 ELSE 2 END AS tie, end_ns
    FROM finalize.host_rows
), running AS (
    SELECT id, delta, sum(delta) OVER (ROWS UNBOUNDED PRECEDING) AS open_now
    FROM (SELECT id, delta FROM points ORDER BY kind, pid, tid, t, tie, end_ns DESC, id)
), depths AS (
    SELECT id, CAST(open_now - 1 AS INTEGER) AS depth
    FROM running
    WHERE delta = 1
)
SELECT h.rowid AS id, h.*, d.depth
FROM finalize.host_rows AS h
POSITIONAL JOIN (SELECT depth FROM depths ORDER BY id) AS d;

DROP TABLE finalize.host_rows;

-- Written out from the temp table, not by the join itself: a positional join runs on one
-- thread, and so would the (compressing) write behind it.
INSERT INTO host_activities
SELECT * FROM finalize_host_depths;

DROP TABLE finalize_host_depths;
