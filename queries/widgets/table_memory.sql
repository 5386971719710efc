-- Params: {allocations}
-- Needs: schema
-- The Memory tab: every allocation of memory_allocations.sql (its text goes in below,
-- run with $limit NULL), with where it is ('GPU 0' | 'host' | 'other 3'), end_ns (the
-- free, else the allocation) and the nearest frame of the user's own code above its
-- innermost frame. Columns: id, device_type, device, where, ts_ns, bytes, freed_ns,
-- lifetime_ns (NULL: never freed in the trace), end_ns, op, frame, user_frame
WITH RECURSIVE allocs AS (
    {allocations}
), up(alloc_id, frame_id, level) AS (
    SELECT id, frame_id, 0 FROM allocs WHERE frame_id IS NOT NULL
    UNION ALL
    SELECT u.alloc_id, f.parent_id, u.level + 1
    FROM up AS u
    JOIN python_frames AS f ON f.id = u.frame_id
    WHERE f.parent_id IS NOT NULL AND NOT f.user_code
), mine AS (
    SELECT u.alloc_id, arg_min(f.name, u.level) AS name
    FROM up AS u
    JOIN python_frames AS f ON f.id = u.frame_id
    WHERE f.user_code
    GROUP BY u.alloc_id
)
SELECT a.id, a.device_type, a.device,
       CASE a.device_type WHEN 'gpu' THEN 'GPU ' || a.device WHEN 'host' THEN 'host'
            ELSE 'other ' || a.device END AS "where",
       a.ts_ns, a.bytes, a.freed_ns, a.lifetime_ns,
       coalesce(a.freed_ns, a.ts_ns + 1) AS end_ns,
       a.op, a.frame, m.name AS user_frame
FROM allocs AS a
LEFT JOIN mine AS m ON m.alloc_id = a.id
