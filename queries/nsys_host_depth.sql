-- Nesting depth of the nsys host ranges, the same as finalize_activities.sql defines it:
-- how many ranges of the same kind on the same thread are open when a range starts, by a
-- running sum over start (+1) and end (-1) points where, at equal times, ends close before
-- starts open and longer ranges open first.
-- Over 10M+ API calls that running sum (a sort of twice the rows) is the slowest step of a
-- load, and almost every call is at depth 0: it starts after every earlier call on its
-- thread has ended. So one sort of the ranges in start order finds the ranges that touch
-- another (a range starting no later than an earlier one ends, or the next range doing so
-- to it) and the running sum is taken over those alone. It gives the same counts: a
-- range that touches none is at depth 0 and, ending before the next range starts, is
-- never open at another range's start.
UPDATE host_activities AS h
SET depth = d.depth
FROM (
    WITH ordered AS (
        SELECT id, kind, pid, tid, start_ns, end_ns,
               max(end_ns) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
                   AS before_end,
               max(end_ns) OVER (w ROWS UNBOUNDED PRECEDING) AS through_end,
               lead(start_ns) OVER w AS next_start
        FROM host_activities
        WINDOW w AS (PARTITION BY kind, pid, tid ORDER BY start_ns, end_ns DESC, id)
    ), touching AS (
        SELECT id, kind, pid, tid, start_ns, end_ns
        FROM ordered
        WHERE before_end >= start_ns OR next_start <= through_end
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
    WHERE delta = 1
) AS d
WHERE h.id = d.id AND h.depth IS DISTINCT FROM d.depth;
