-- GPU work per innermost Python frame and the frames above each: the temp table
-- code_chain (origin_id: a frame that launched GPU work itself, frame_id: it or one of
-- its ancestors) and code_origin (frame_id, gpu_ns, launches: what it launched itself).
-- GPU work is every kernel, copy and set the launches table links to a frame.
CREATE OR REPLACE TEMP TABLE code_origin AS
SELECT l.frame_id, sum(g.duration_ns) AS gpu_ns, count(*) AS launches
FROM launches AS l
JOIN gpu_activities AS g ON g.id = l.gpu_id
WHERE l.frame_id IS NOT NULL
GROUP BY l.frame_id;

CREATE OR REPLACE TEMP TABLE code_chain AS
WITH RECURSIVE chain(origin_id, frame_id) AS (
    SELECT frame_id, frame_id FROM code_origin
    UNION ALL
    SELECT c.origin_id, f.parent_id
    FROM chain AS c
    JOIN python_frames AS f ON f.id = c.frame_id
    WHERE f.parent_id IS NOT NULL
)
SELECT * FROM chain;
