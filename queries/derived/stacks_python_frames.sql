-- Params: $kind, $libraries, $stdlib, {host}
-- Needs: temp table stacks_nesting_parents, table stacks_work.frame_ids, temp table {host}
-- Fill python_frames from the host rows ({host}: host_activities, or before it is written,
-- the rows whose depths are set: stacks_nesting_host.sql) of kind $kind ('python'; 'annotation'
-- for a trace without Python frames, whose NVTX ranges then stand in): each frame's name
-- parsed ('file.py(123): func'), whether it is the user's own code, and its parent, the
-- frame one level up that was open when it started on its thread: the one the trace's own
-- "Python parent id" names where that is the enclosing frame (the table
-- stacks_work.frame_ids, stacks_python_ids.sql; empty for traces without ids), else the one
-- its nesting gives (the temp table stacks_nesting_parents, tui/derived/nesting.py).
-- The frames are the left side of the joins after, the ids' tables (a few numbers a frame)
-- the right, which tui/derived/stacks.py has DuckDB build its hash tables from as written:
-- left to itself it built them from the frames, names and all (twice the time).
-- Names are parsed once per distinct name (a trace repeats a few thousand names over
-- millions of frames), with string functions rather than a regexp with groups.
-- $libraries: top-level package names that are libraries, not the user's code;
-- $stdlib: the standard library's module names.
INSERT INTO python_frames
WITH numbered AS (
    SELECT id, pid, tid, start_ns, end_ns, depth, name
    FROM {host}
    WHERE kind = $kind
), split AS (
    -- 'dir/file.py(123): func': the file and line before '): ', the function after it
    SELECT name, strpos(name, '): ') AS close_at
    FROM (SELECT DISTINCT name FROM numbered)
), located AS (
    SELECT name, close_at,
           CASE WHEN close_at > 0 THEN left(name, close_at - 1) END AS file_line
    FROM split
), parts AS (
    SELECT name,
           CASE WHEN strpos(file_line, '(') > 0
                THEN left(file_line, length(file_line) - strpos(reverse(file_line), '('))
           END AS file,
           CASE WHEN strpos(file_line, '(') > 0
                THEN TRY_CAST(right(file_line, strpos(reverse(file_line), '(') - 1) AS INTEGER)
           END AS line,
           CASE WHEN close_at > 0 THEN substr(name, close_at + 3) ELSE name END AS func
    FROM located
), names AS (
    SELECT name, nullif(file, '') AS file, line, func,
           $kind = 'annotation' OR nullif(file, '') IS NOT NULL AND NOT starts_with(file, '<')
           AND CASE
               WHEN starts_with(file, '/') OR file ~ '^[A-Za-z]:[\\/]' THEN
                   NOT regexp_matches(file, '[\\/](site|dist)-packages[\\/]|[\\/]lib[\\/]python[0-9.]*[\\/]')
               ELSE NOT list_contains($libraries, top) AND NOT list_contains($stdlib, top)
           END AS user_code
    FROM (SELECT *, regexp_replace(split_part(replace(file, '\', '/'), '/', 1), '\.py$', '')
                    AS top
          FROM parts)
)
SELECT f.id, coalesce(i.parent_by_id, t.parent_id) AS parent_id, f.pid, f.tid,
       f.start_ns, f.end_ns, f.depth, f.name, n.file, n.line, n.func, n.user_code,
       i.python_id, i.python_parent_id
FROM numbered AS f
JOIN names AS n USING (name)
LEFT JOIN stacks_work.frame_ids AS i USING (id)
LEFT JOIN stacks_nesting_parents AS t USING (id);
