-- Params: $id
-- Needs: schema
-- The API call that launched one GPU activity, for frames_at.sql: its thread, its start and
-- the innermost frame launches links it to. Params: $id (gpu_activities.id).
-- Columns: pid, tid, start_ns, frame_id
SELECT h.pid, h.tid, h.start_ns, l.frame_id
FROM launches AS l
JOIN host_activities AS h ON h.id = l.runtime_id
WHERE l.gpu_id = $id;
