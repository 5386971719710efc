-- Params: none
-- Needs: schema
-- GPU work per innermost Python frame: the temp table code_origin (frame_id, gpu_ns,
-- launches: what a frame that launched GPU work itself launched).
-- GPU work is every kernel, copy and set the launches table links to a frame.
CREATE OR REPLACE TEMP TABLE code_origin AS
SELECT l.frame_id, sum(g.duration_ns) AS gpu_ns, count(*) AS launches
FROM launches AS l
JOIN gpu_activities AS g ON g.id = l.gpu_id
WHERE l.frame_id IS NOT NULL
GROUP BY l.frame_id;
