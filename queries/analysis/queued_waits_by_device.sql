-- Params: $end_ns, $start_ns
-- Needs: schema
-- Per device, what tells apart the two kinds of idle an 'other'-bound device has
-- (tui/analysis/diagnosis.py: the next work already queued, or no host call linked to it):
-- its kernels and copies overlapping [$start_ns, $end_ns) (NULL: no bound; the activities
-- device_time_split.sql counts), how many of them a host call is known to have launched
-- (`launches`), and its peer copies (to or from another GPU: `PtoP`, or source and
-- destination devices that differ), by which work passes from one GPU to the next.
-- Columns: device, activities, launched, peer_copies.
SELECT a.device, count(*) AS activities,
       count(*) FILTER (WHERE a.id IN (SELECT gpu_id FROM launches)) AS launched,
       count(*) FILTER (WHERE a.copy_kind = 'PtoP' OR a.src_device <> a.dst_device)
           AS peer_copies
FROM gpu_activities AS a
WHERE a.device IS NOT NULL AND a.kind IN ('kernel', 'memcpy')
  AND ($start_ns IS NULL OR a.end_ns > $start_ns)
  AND ($end_ns IS NULL OR a.start_ns < $end_ns)
GROUP BY a.device
ORDER BY a.device;
