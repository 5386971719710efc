-- Params: none
-- Needs: temp table nsys_touching
-- Nesting depth of the nsys host ranges, as tui/derived/host_depth.py defines it: how many
-- ranges of the same kind on the same thread are open when a range starts, by a running
-- sum over start (+1) and end (-1) points where, at equal times, ends close before starts
-- open and longer ranges open first.
-- Over 10M+ API calls that running sum (a sort of twice the rows) would be the slowest
-- step of a load, and almost every call is at depth 0. So it runs over the ranges in
-- nsys_touching alone (ids of the ranges that touch a neighbour in start order, found by
-- the loader or nsys_host_touching.sql): it gives the same counts, as a range that
-- touches none is at depth 0 and, ending before the next range starts, is never open at
-- another range's start. Rows are loaded at depth 0; only deeper ones are updated.
UPDATE host_activities AS h
SET depth = d.depth
FROM (
    WITH touching AS (
        SELECT id, kind, pid, tid, start_ns, end_ns
        FROM host_activities
        WHERE id IN (SELECT id FROM nsys_touching)
    ), points AS (
        SELECT id, kind, pid, tid, start_ns AS t, 1 AS delta, 1 AS tie, end_ns
        FROM touching
        UNION ALL
        SELECT id, kind, pid, tid, end_ns AS t, -1 AS delta,
               CASE WHEN end_ns > start_ns THEN 0 ELSE 2 END AS tie, end_ns
        FROM touching
    )
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
    WHERE delta = 1 AND open_now > 1
) AS d
WHERE h.id = d.id;
