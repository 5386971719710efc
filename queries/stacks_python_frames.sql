-- Fill python_frames from the host_activities rows of kind $kind ('python'; 'annotation'
-- for a trace without Python frames, whose NVTX ranges then stand in): each frame's name
-- parsed ('file.py(123): func'), whether it is the user's own code, and its parent, the
-- frame one level up that was open when it started on its thread (an ASOF join on the
-- depths host_depth.sql gave). The trace's own ids come from stacks_staged_python, paired
-- with the rows by position (kineto_python_ids.sql; empty for other sources).
-- $libraries: top-level package names that are libraries, not the user's code;
-- $stdlib: the standard library's module names.
INSERT INTO python_frames
WITH frames AS (
    SELECT id, pid, tid, start_ns, end_ns, depth, name,
           row_number() OVER (ORDER BY id) AS ord,
           regexp_extract(name, '^(.*)\((\d+)\): (.*)$', ['file', 'line', 'func']) AS m
    FROM host_activities
    WHERE kind = $kind
), parsed AS (
    SELECT * EXCLUDE (m),
           nullif(m.file, '') AS file,
           TRY_CAST(m.line AS INTEGER) AS line,
           coalesce(nullif(m.func, ''), name) AS func
    FROM frames
)
SELECT f.id, p.id AS parent_id, f.pid, f.tid, f.start_ns, f.end_ns, f.depth, f.name,
       f.file, f.line, f.func,
       $kind = 'annotation' OR f.file IS NOT NULL AND NOT starts_with(f.file, '<') AND CASE
           WHEN starts_with(f.file, '/') OR f.file ~ '^[A-Za-z]:[\\/]' THEN
               NOT regexp_matches(f.file, '[\\/](site|dist)-packages[\\/]|[\\/]lib[\\/]python[0-9.]*[\\/]')
           ELSE NOT list_contains($libraries, regexp_replace(split_part(replace(f.file, '\', '/'), '/', 1), '\.py$', ''))
                AND NOT list_contains($stdlib, regexp_replace(split_part(replace(f.file, '\', '/'), '/', 1), '\.py$', ''))
       END AS user_code,
       s.python_id, s.python_parent_id
FROM parsed AS f
ASOF LEFT JOIN parsed AS p
    ON p.pid = f.pid AND p.tid = f.tid AND p.depth = f.depth - 1 AND p.start_ns <= f.start_ns
LEFT JOIN stacks_staged_python AS s
    ON s.ord = f.ord AND s.start_ns = f.start_ns AND s.name = f.name
ORDER BY f.id;
