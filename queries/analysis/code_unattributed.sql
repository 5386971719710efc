-- Params: $since, $until
-- Needs: schema
-- GPU work no Python frame launched (a launch on a thread with no frame open, e.g. the
-- autograd engine's, or a trace recorded without stacks), among the activities of ids
-- [$since, $until): tui/analysis/code.py adds the parts up. A part of 1M ids at a time,
-- each join's tables small: a 3 GB nsys export's 15.7M launches at once took 1.2 s, in
-- parts 0.44 s. Columns: gpu_ns, launches, linked (GPU activities the launches table
-- holds at all)
SELECT CAST(coalesce(sum(g.duration_ns) FILTER (WHERE l.frame_id IS NULL), 0) AS BIGINT),
       count(*) FILTER (WHERE l.frame_id IS NULL), count(*)
FROM launches AS l
JOIN gpu_activities AS g ON g.id = l.gpu_id
WHERE l.gpu_id >= $since AND l.gpu_id < $until AND g.id >= $since AND g.id < $until;
