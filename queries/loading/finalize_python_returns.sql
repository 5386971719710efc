-- Params: none
-- Needs: table finalize.host_rows
-- Python frames whose return the profiler lost, closed where the frame that called them
-- returned (a frame ends before its caller does). Kineto's Python tracer closes the
-- frames still open when it stops at its stop time, the thread's last frame end; a frame
-- it never saw return (torch.compile's autograd `apply`, a pybind11 `__exit__`) is left
-- open there too, long after the frame named by its "Python parent id" returned, and
-- would enclose, as it seemed, every later frame of its thread. Such a frame is bounded
-- by that caller's end, and the frames still open inside it by the same bound (their
-- parent ids followed down). Frames legitimately open at the stop (`<module>`, `main`)
-- have callers open there too, and keep their ends. Returns the frames closed (count).
UPDATE finalize.host_rows AS h
SET end_ns = greatest(h.start_ns, b.bound_ns),
    duration_ns = greatest(h.start_ns, b.bound_ns) - h.start_ns
FROM (
    WITH RECURSIVE last AS (
        SELECT pid, tid, max(end_ns) AS last_ns
        FROM finalize.host_rows
        WHERE kind = 'python' AND python_id IS NOT NULL
        GROUP BY pid, tid
    ), open AS (  -- the frames the tracer closed at its stop: few
        SELECT f.rowid AS row, f.pid, f.tid, f.end_ns, f.python_id, f.python_parent_id
        FROM finalize.host_rows AS f
        JOIN last AS l ON f.pid = l.pid AND f.tid = l.tid AND f.end_ns = l.last_ns
        WHERE f.kind = 'python' AND f.python_id IS NOT NULL
    ), bounded(row, python_id, pid, tid, bound_ns) AS (
        SELECT o.row, o.python_id, o.pid, o.tid, p.end_ns
        FROM open AS o
        JOIN finalize.host_rows AS p
          ON p.kind = 'python' AND p.python_id = o.python_parent_id
         AND p.pid = o.pid AND p.tid = o.tid
        WHERE p.end_ns < o.end_ns
        -- UNION, not UNION ALL: ids that loop (a damaged trace) add nothing new and end
        UNION
        SELECT o.row, o.python_id, o.pid, o.tid, b.bound_ns
        FROM open AS o
        JOIN bounded AS b
          ON o.python_parent_id = b.python_id AND o.pid = b.pid AND o.tid = b.tid
    )
    SELECT row, min(bound_ns) AS bound_ns FROM bounded GROUP BY row
) AS b
WHERE h.rowid = b.row;
