-- Params: none
-- Needs: arrow gpu_idle_batch
-- A batch of idle intervals tui/derived/gpu_idle.py found (gpu_idle_batch: device,
-- start_ns, end_ns, duration_ns, before_id, after_id), into gpu_idle.
INSERT INTO gpu_idle
SELECT device, start_ns, end_ns, duration_ns, before_id, after_id
FROM gpu_idle_batch;
