-- Params: none
-- Needs: schema
-- The GPU activities as tui/derived/gpu_idle.py reads them for the idle intervals: in the
-- order they are stored, which is id order (every loader writes them sorted by device,
-- start_ns, end_ns and numbers them by row id; gpu_idle.py checks).
SELECT id, device, start_ns, end_ns
FROM gpu_activities;
