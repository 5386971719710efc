-- The frames around the call that launched one GPU activity, innermost first: the Python
-- frames open on the launching thread when the call started (the frames
-- tui/sources/nesting.py finds), or the call's own CUDA backtrace (nsys --cudabacktrace:
-- its innermost frame and those above it). None where NVTX ranges stand in for frames
-- (the details show those as the nvtx path).
-- Params: $id (gpu_activities.id). Columns: id, name, user_code, depth
WITH RECURSIVE source AS (
    SELECT value FROM trace_meta WHERE key = 'code_source'
), call AS (
    SELECT h.pid, h.tid, h.start_ns
    FROM launches AS l
    JOIN host_activities AS h ON h.id = l.runtime_id
    WHERE l.gpu_id = $id AND (SELECT value FROM source) = 'python'
), chain(id) AS (
    SELECT frame_id FROM launches
    WHERE gpu_id = $id AND frame_id IS NOT NULL
      AND (SELECT value FROM source) = 'cuda_backtrace'
    UNION ALL
    SELECT f.parent_id
    FROM chain AS c
    JOIN python_frames AS f ON f.id = c.id
    WHERE f.parent_id IS NOT NULL
)
SELECT id, name, user_code, depth
FROM (
    SELECT f.id, f.name, f.user_code, f.depth, f.start_ns
    FROM python_frames AS f, call AS c
    WHERE f.pid = c.pid AND f.tid = c.tid AND f.start_ns <= c.start_ns AND f.end_ns > c.start_ns
    UNION ALL
    SELECT f.id, f.name, f.user_code, f.depth, f.start_ns
    FROM chain AS c
    JOIN python_frames AS f USING (id)
)
ORDER BY depth DESC, start_ns DESC;
