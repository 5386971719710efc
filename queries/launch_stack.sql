-- The Python frames open on the launching thread when the call that launched one GPU
-- activity started, innermost first (the frames tui/sources/nesting.py finds).
-- None where NVTX ranges stand in for frames (the details show those as the nvtx path).
-- Params: $id (gpu_activities.id). Columns: id, name, user_code, depth
WITH call AS (
    SELECT h.pid, h.tid, h.start_ns
    FROM launches AS l
    JOIN host_activities AS h ON h.id = l.runtime_id
    WHERE l.gpu_id = $id
)
SELECT f.id, f.name, f.user_code, f.depth
FROM python_frames AS f, call AS c
WHERE f.pid = c.pid AND f.tid = c.tid AND f.start_ns <= c.start_ns AND f.end_ns > c.start_ns
  AND (SELECT value FROM trace_meta WHERE key = 'code_source') = 'python'
ORDER BY f.depth DESC, f.start_ns DESC;
