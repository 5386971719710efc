-- Params: $pid, $tid
-- Needs: table host_range_activities
-- Traces without CPU samples (Kineto with_stack): the time the Python frames of one thread
-- ($pid, $tid; NULL: every thread) spent inside host_ranges (their rows of
-- host_range_activities.sql), each frame's own time (its time in the ranges less its
-- callees'), by frame name and file. Columns: name, file, ns;
-- largest first.
WITH clipped AS (
    SELECT f.id, f.parent_id, f.name,
           -- a frame without a file parsed out of its name (JAX's 'compiler.py:334 f')
           coalesce(f.file, nullif(regexp_extract(f.name, '^(\S+?\.py)[(:]', 1), ''),
                    '(built-in)') AS file,
           least(f.end_ns, r.range_end) - greatest(f.start_ns, r.range_start) AS ns
    FROM python_frames AS f
    -- Python functions only: where a trace has none, its NVTX ranges stand in as frames
    JOIN host_range_activities AS r ON r.id = f.id AND r.kind = 'python'
    WHERE $tid IS NULL OR (f.pid = $pid AND f.tid = $tid)
), frames AS (
    SELECT id, parent_id, any_value(name) AS name, any_value(file) AS file, sum(ns) AS ns
    FROM clipped
    GROUP BY id, parent_id
), callees AS (
    SELECT parent_id AS id, sum(ns) AS callee_ns
    FROM frames
    WHERE parent_id IS NOT NULL
    GROUP BY parent_id
)
SELECT name, file, sum(ns - coalesce(callee_ns, 0)) AS ns
FROM frames
LEFT JOIN callees USING (id)
GROUP BY name, file
HAVING sum(ns - coalesce(callee_ns, 0)) > 0
ORDER BY ns DESC, name, file;
