-- Params: $limit
-- Needs: schema
-- Allocations, largest first, each with its free (the next event at its address on its
-- device that frees memory), the op and the innermost Python frame it was made in.
-- Columns: id, device_type, device, ts_ns, bytes, freed_ns, lifetime_ns (NULL: never
-- freed in the trace), op, frame, frame_id
WITH allocs AS (
    SELECT * FROM memory_events WHERE bytes > 0
), frees AS (
    SELECT id, device_type, device, addr, ts_ns FROM memory_events WHERE bytes < 0
)
SELECT a.id, a.device_type, a.device, a.ts_ns, a.bytes, f.ts_ns AS freed_ns,
       f.ts_ns - a.ts_ns AS lifetime_ns, o.name AS op, p.name AS frame, a.frame_id
FROM allocs AS a
ASOF LEFT JOIN frees AS f
    ON f.device_type = a.device_type AND f.device = a.device AND f.addr = a.addr
   AND f.id > a.id
LEFT JOIN host_activities AS o ON o.id = a.op_id
LEFT JOIN python_frames AS p ON p.id = a.frame_id
ORDER BY a.bytes DESC, a.ts_ns
LIMIT $limit;
