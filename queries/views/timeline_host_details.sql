-- Params: $id
-- Needs: schema
-- What the details panel shows about one host interval: its own columns, the ranges of
-- the same kind that enclose it on its thread, and how many GPU activities it launched.
-- Given:  $id (host_activities.id)
-- Columns: kind, name, pid, tid, start_ns, duration_ns, depth, parents (outermost first,
--          joined by ' > '), launched (GPU activities with its correlation id)
WITH h AS (
    SELECT * FROM host_activities WHERE id = $id
)
SELECT h.kind, h.name, h.pid, h.tid, h.start_ns, h.duration_ns, h.depth,
       (SELECT string_agg(p.name, ' > ' ORDER BY p.depth)
        FROM host_activities AS p
        WHERE p.kind = h.kind AND p.pid = h.pid AND p.tid = h.tid AND p.depth < h.depth
          AND p.start_ns <= h.start_ns AND p.end_ns >= h.end_ns) AS parents,
       (SELECT count(*) FROM gpu_activities AS g
        WHERE h.correlation IS NOT NULL AND g.correlation = h.correlation) AS launched
FROM h
