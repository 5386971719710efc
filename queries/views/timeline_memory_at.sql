-- Params: $device, $t, $t_hi, $t_lo
-- Needs: schema
-- The memory event the cursor points at on a GPU's memory lane: the largest allocation
-- in the cursor's column [$t_lo, $t_hi), else the last event at or before $t, with its op
-- and innermost Python frame.
-- Columns: id, ts_ns, bytes, total_allocated,
--         total_reserved, pid, tid, op, frame, frame_id
WITH pick AS (
    SELECT * FROM (
        SELECT *, 0 AS rank_kind FROM memory_events
        WHERE device_type = 'gpu' AND device = $device AND ts_ns >= $t_lo AND ts_ns < $t_hi
          AND bytes > 0
        ORDER BY bytes DESC, id
        LIMIT 1
    )
    UNION ALL
    SELECT * FROM (
        SELECT *, 1 AS rank_kind FROM memory_events
        WHERE device_type = 'gpu' AND device = $device AND ts_ns <= $t
        ORDER BY ts_ns DESC, id DESC
        LIMIT 1
    )
    ORDER BY rank_kind
    LIMIT 1
)
SELECT p.id, p.ts_ns, p.bytes, p.total_allocated, p.total_reserved, p.pid, p.tid,
       o.name AS op, f.name AS frame, p.frame_id
FROM pick AS p
LEFT JOIN host_activities AS o ON o.id = p.op_id
LEFT JOIN python_frames AS f ON f.id = p.frame_id;
