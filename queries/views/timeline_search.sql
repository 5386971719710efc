-- Params: $max_depth, $pattern, $regex
-- Needs: schema
-- Every interval whose name matches a search, with the timeline lane that shows it, in
-- time order. Kernels, copies and memsets: their stream's GPU lane. NVTX / user
-- annotations: the lane of their depth; deeper than the lanes shown, a lane opened for
-- their depth (lane_kind 7). Host ops, API calls and Python frames: their thread's lane
-- when they are outermost and the only kind outermost on the thread (else that lane shows
-- another kind over them); otherwise a lane opened for their kind and depth.
-- Given:  $pattern (a substring, any case; or a regular expression when $regex),
--          $regex (bool), $max_depth (annotation depths shown: 0 .. $max_depth - 1)
-- Columns: lane_kind, k1, k2, k3 (as timeline_lanes.sql; an opened lane's k3 is
--          kind number * 65536 + depth, the kinds numbered as tui/views/timeline/lanes.py's
--          HOST_KINDS), id (gpu_activities.id for lane_kind 0, else host_activities.id),
--          start_ns, end_ns (as recorded: equal to start_ns for a zero-length one)
WITH matched_host AS (
    SELECT id, kind, pid, tid, depth, start_ns, end_ns
    FROM host_activities
    WHERE CASE WHEN $regex THEN regexp_matches(name, $pattern)
               ELSE contains(lower(name), lower($pattern)) END
), mixed AS (
    -- threads whose outermost host ranges are of several kinds (Python frames around ops)
    SELECT pid, tid
    FROM host_activities
    WHERE kind <> 'annotation' AND depth = 0
      AND (pid, tid) IN (SELECT (pid, tid) FROM matched_host)
    GROUP BY ALL
    HAVING count(DISTINCT kind) > 1
), host_hits AS (
    SELECT CASE WHEN h.kind = 'annotation' AND h.depth < $max_depth THEN 1
                WHEN h.kind <> 'annotation' AND h.depth = 0 AND m.pid IS NULL THEN 2
                ELSE 7 END AS lane_kind,
           h.*
    FROM matched_host AS h
    LEFT JOIN mixed AS m ON m.pid = h.pid AND m.tid = h.tid
)
SELECT 0 AS lane_kind, device AS k1, stream AS k2, 0 AS k3, id, start_ns, end_ns
FROM gpu_activities
WHERE CASE WHEN $regex THEN regexp_matches(name, $pattern)
           ELSE contains(lower(name), lower($pattern)) END
UNION ALL
SELECT lane_kind, pid, tid,
       CASE lane_kind WHEN 1 THEN depth WHEN 2 THEN 0
            ELSE CASE kind WHEN 'annotation' THEN 0 WHEN 'python' THEN 1 WHEN 'cpu_op' THEN 2
                           WHEN 'runtime' THEN 3 ELSE 4 END * 65536 + depth END,
       id, start_ns, end_ns
FROM host_hits
ORDER BY start_ns, lane_kind, k1, k2, k3, id
