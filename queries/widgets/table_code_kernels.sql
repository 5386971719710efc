-- Params: $ids, $name
-- Needs: schema
-- The GPU work launched under some Python frames (each frame, or any frame it called),
-- by kernel name: for the Code tab's Enter. $name: every frame of that name; $ids: these
-- python_frames ids (a call path's frames). The first launch is where Enter jumps.
-- Columns: name, count, total_ns, avg_ns, first_id, first_start_ns, first_end_ns,
--          first_device, first_stream
WITH RECURSIVE under(id) AS (
    SELECT id FROM python_frames
    WHERE name = $name OR id IN (SELECT unnest($ids))
    UNION
    SELECT f.id FROM python_frames AS f JOIN under AS u ON f.parent_id = u.id
)
SELECT g.name, count(*) AS count, sum(g.duration_ns)::BIGINT AS total_ns,
       avg(g.duration_ns) AS avg_ns,
       arg_min(g.id, g.start_ns) AS first_id, min(g.start_ns) AS first_start_ns,
       arg_min(g.end_ns, g.start_ns) AS first_end_ns,
       arg_min(g.device, g.start_ns) AS first_device,
       arg_min(g.stream, g.start_ns) AS first_stream
FROM launches AS l
JOIN gpu_activities AS g ON g.id = l.gpu_id
WHERE l.frame_id IN (SELECT id FROM under)
GROUP BY g.name
