-- Params: none
-- Needs: temp table code_origin
-- The frames above each frame that launched GPU work, after code_origin.sql: the temp
-- table code_chain (origin_id: a frame of code_origin, frame_id: it or one of its
-- ancestors).
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
