-- The Memory tab: allocations, with their free, op and innermost Python frame (and the
-- nearest frame of the user's own code above it). Columns: id, device_type, device,
-- where ('GPU 0' | 'host' | 'other 3'), ts_ns, bytes, freed_ns, lifetime_ns (NULL:
-- never freed in the trace), end_ns (the free, else the allocation), op, frame, user_frame
WITH RECURSIVE allocs AS (
    SELECT * FROM memory_events WHERE bytes > 0
), frees AS (
    SELECT id, device_type, device, addr, ts_ns FROM memory_events WHERE bytes < 0
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
       a.ts_ns, a.bytes, f.ts_ns AS freed_ns, f.ts_ns - a.ts_ns AS lifetime_ns,
       coalesce(f.ts_ns, a.ts_ns + 1) AS end_ns,
       o.name AS op, p.name AS frame, m.name AS user_frame
FROM allocs AS a
ASOF LEFT JOIN frees AS f
    ON f.device_type = a.device_type AND f.device = a.device AND f.addr = a.addr
   AND f.id > a.id
LEFT JOIN host_activities AS o ON o.id = a.op_id
LEFT JOIN python_frames AS p ON p.id = a.frame_id
LEFT JOIN mine AS m ON m.alloc_id = a.id
