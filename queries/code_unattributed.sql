-- GPU work no Python frame launched (a launch on a thread with no frame open, e.g. the
-- autograd engine's, or a trace recorded without stacks). Columns: gpu_ns, launches,
-- linked (GPU activities the launches table holds at all)
SELECT CAST(coalesce(sum(g.duration_ns) FILTER (WHERE l.frame_id IS NULL), 0) AS BIGINT),
       count(*) FILTER (WHERE l.frame_id IS NULL), count(*)
FROM launches AS l
JOIN gpu_activities AS g ON g.id = l.gpu_id;
