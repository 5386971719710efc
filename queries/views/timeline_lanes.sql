-- Params: $max_depth
-- Needs: schema
-- The timeline's lanes, in display order: one per (device, stream) with GPU work, one
-- per annotation (NVTX / user_annotation) nesting depth on each host thread, up to
-- $max_depth levels, and one per host thread with CPU ops or API calls.
-- Given:  $max_depth (annotation depths shown: 0 .. $max_depth - 1)
-- Columns: lane_kind (0 GPU stream, 1 annotation depth, 2 host thread),
--          k1, k2, k3 (the lane's key: device, stream, 0 | pid, tid, depth | pid, tid, 0),
--          activities (how many intervals the lane holds)
SELECT 0 AS lane_kind, device AS k1, stream AS k2, 0 AS k3, count(*) AS activities
FROM gpu_activities
GROUP BY ALL
UNION ALL
SELECT 1, pid, tid, depth, count(*)
FROM host_activities
WHERE kind = 'annotation' AND depth < $max_depth
GROUP BY ALL
UNION ALL
SELECT 2, pid, tid, 0, count(*)
FROM host_activities
WHERE kind <> 'annotation' AND depth = 0
GROUP BY ALL
ORDER BY lane_kind, k1, k2, k3
