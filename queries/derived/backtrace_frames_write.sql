-- Params: $libraries
-- Needs: temp table backtrace_keys, arrow backtrace_nodes, arrow backtrace_rows, temp macro python_frame_name, temp macro python_user_code, temp table stacks_input_backtrace_calls
-- The CUDA backtraces' frames (native ones, and Python's where nsys took both) into
-- python_frames (emptied first; tui/derived/backtrace_frames.py). Registered:
-- backtrace_nodes (node, parent, level, frame_key: one per distinct path of frames from
-- the outermost),
-- backtrace_rows (chain, node: every path a chain passes through), backtrace_inner (chain,
-- node: its innermost). A frame's pid, tid and time span are those of the calls under it.
-- $libraries: a regexp on module paths that are not the user's own code.
INSERT INTO python_frames
WITH spans AS (
    SELECT r.node, min(h.start_ns) AS start_ns, max(h.end_ns) AS end_ns,
           arg_min(h.pid, h.start_ns) AS pid, arg_min(h.tid, h.start_ns) AS tid
    FROM backtrace_rows AS r
    JOIN stacks_input_backtrace_calls AS c USING (chain)
    JOIN host_activities AS h ON h.id = c.call_id
    GROUP BY r.node
)
SELECT n.node AS id, n.parent AS parent_id, s.pid, s.tid, s.start_ns, s.end_ns,
       n.level AS depth,
       -- a native frame 'symbol (library.so)'; a Python one (it has a line) as
       -- python_frame_macros.sql names it
       CASE WHEN k.line IS NULL
            THEN k.symbol || ' (' || regexp_extract(k.module, '[^/]*$') || ')'
            ELSE python_frame_name(k.module, k.line, k.symbol)
       END AS name,
       k.module AS file, k.line, k.symbol AS func,
       CASE WHEN k.line IS NULL THEN NOT regexp_matches(k.module, $libraries)
            ELSE python_user_code(k.module) END AS user_code,
       NULL AS python_id, NULL AS python_parent_id
FROM backtrace_nodes AS n
JOIN backtrace_keys AS k USING (frame_key)
JOIN spans AS s USING (node)
ORDER BY id;
