-- Params: $frame_id, $pid, $t, $tid
-- Needs: schema
-- The frames at a point on a thread, innermost first: the Python frames open on thread
-- ($pid, $tid) at $t (the frames tui/derived/nesting.py finds), or, where an nsys report's
-- CUDA backtraces are the frames, the frame $frame_id and those above it. None where NVTX
-- ranges stand in for frames (the details show those as the nvtx path). For a launch the
-- point is its API call's start (launch_call.sql); for a memory event, its time.
-- Columns: id, name, user_code, depth
WITH RECURSIVE source AS (
    SELECT value FROM trace_meta WHERE key = 'code_source'
), chain(id) AS (
    SELECT $frame_id::BIGINT
    WHERE $frame_id IS NOT NULL AND (SELECT value FROM source) = 'cuda_backtrace'
    UNION ALL
    SELECT f.parent_id
    FROM chain AS c
    JOIN python_frames AS f ON f.id = c.id
    WHERE f.parent_id IS NOT NULL
)
SELECT id, name, user_code, depth
FROM (
    SELECT id, name, user_code, depth, start_ns
    FROM python_frames
    WHERE pid = $pid AND tid = $tid AND start_ns <= $t AND end_ns > $t
      AND (SELECT value FROM source) = 'python'
    UNION ALL
    SELECT f.id, f.name, f.user_code, f.depth, f.start_ns
    FROM chain AS c
    JOIN python_frames AS f USING (id)
)
ORDER BY depth DESC, start_ns DESC;
