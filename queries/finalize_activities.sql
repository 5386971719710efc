-- After a loader staged its rows in staged_gpu / staged_host (temp tables, or views over
-- the events it parsed): write the activities numbered, in one pass each. GPU activities
-- are stored sorted by time so the timeline's range scans skip most of the table (DuckDB
-- keeps min/max per row group); host activities are many times more numerous and sorting
-- them would cost more at load than it saves at query time.
-- An event without a name (a damaged or odd trace) gets '(no name)', never NULL.
INSERT INTO gpu_activities
SELECT row_number() OVER (ORDER BY device, start_ns, end_ns, stream, name) - 1 AS id,
       * REPLACE (coalesce(name, '(no name)') AS name)
FROM staged_gpu
ORDER BY device, start_ns, end_ns, stream, name;

-- Host rows with their nesting depth: how many ranges of the same kind on the same thread
-- are open when a range starts. A running sum over start (+1) and end (-1) points; at
-- equal times, ends close before starts open, and longer ranges open first. The numbered
-- rows are materialized so the three reads of them agree on the ids.
INSERT INTO host_activities
WITH numbered AS MATERIALIZED (
    SELECT row_number() OVER () - 1 AS id,
           * EXCLUDE (depth) REPLACE (coalesce(name, '(no name)') AS name)
    FROM staged_host
), points AS (
    SELECT id, kind, pid, tid, start_ns AS t, 1 AS delta, 1 AS tie, end_ns
    FROM numbered
    UNION ALL
    SELECT id, kind, pid, tid, end_ns AS t, -1 AS delta,
           CASE WHEN end_ns > start_ns THEN 0 ELSE 2 END AS tie, end_ns
    FROM numbered
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
SELECT n.*, d.depth
FROM numbered AS n
JOIN depths AS d USING (id)
ORDER BY n.id;
