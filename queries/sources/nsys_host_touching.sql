-- Params: none
-- Needs: schema
-- The nsys host ranges that may nest, when they could not be found while loading (some
-- thread's rows came out of start order): ranges starting no later than an earlier range
-- of their kind and thread ends, and the ranges just before those. One sort of the
-- ranges in the order of host depth's running sum (start, longer first, id).
CREATE OR REPLACE TEMP TABLE nsys_touching AS
WITH ordered AS (
    SELECT id, start_ns,
           max(end_ns) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before_end,
           max(end_ns) OVER (w ROWS UNBOUNDED PRECEDING) AS through_end,
           lead(start_ns) OVER w AS next_start
    FROM host_activities
    WINDOW w AS (PARTITION BY kind, pid, tid ORDER BY start_ns, end_ns DESC, id)
)
SELECT id
FROM ordered
WHERE before_end >= start_ns OR next_start <= through_end;
