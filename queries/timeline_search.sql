-- Every interval whose name matches a search, with the timeline lane it is drawn on,
-- in time order. Kernels, copies and memsets (GPU lanes), NVTX / user annotations (the
-- lane of their depth, the deepest shown lane for deeper ones) and host ops and API calls
-- (their thread's lane).
-- Params:  $pattern (a substring, any case; or a regular expression when $regex),
--          $regex (bool), $max_depth (annotation depths shown: 0 .. $max_depth - 1)
-- Columns: lane_kind, k1, k2, k3 (as timeline_lanes.sql), start_ns, end_ns
WITH hits AS (
    SELECT 0 AS lane_kind, device AS k1, stream AS k2, 0 AS k3, start_ns, end_ns, name
    FROM gpu_activities
    UNION ALL
    SELECT CASE WHEN kind = 'annotation' THEN 1 ELSE 2 END, pid, tid,
           CASE WHEN kind = 'annotation' THEN least(depth, $max_depth - 1) ELSE 0 END,
           start_ns, end_ns, name
    FROM host_activities
)
SELECT lane_kind, k1, k2, k3, start_ns, greatest(end_ns, start_ns + 1) AS end_ns
FROM hits
WHERE CASE WHEN $regex THEN regexp_matches(name, $pattern)
           ELSE contains(lower(name), lower($pattern)) END
ORDER BY start_ns, lane_kind, k1, k2, k3
