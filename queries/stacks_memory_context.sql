-- Set each memory event's op and Python frame (of $frame_kind, see stacks_launches.sql)
-- from what stacks_innermost.sql found for it.
UPDATE memory_events AS m
SET op_id = f.op_id, frame_id = f.frame_id
FROM (
    SELECT point_id,
           max(host_id) FILTER (WHERE kind = 'cpu_op') AS op_id,
           max(host_id) FILTER (WHERE kind = $frame_kind) AS frame_id
    FROM stacks_found
    GROUP BY point_id
) AS f
WHERE m.id = f.point_id;
