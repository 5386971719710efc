-- GPU time by Python frame (bottom-up, one row per frame name: 'file.py(123): func'),
-- after code_origins.sql. gpu_ns: the GPU work launched while the frame was on the stack
-- (a frame that recurses counts it once); self_gpu_ns: launched with it innermost.
-- Columns: frame, user_code, gpu_ns, self_gpu_ns, launches, self_launches
WITH named AS (
    SELECT DISTINCT c.origin_id, f.name
    FROM code_chain AS c
    JOIN python_frames AS f ON f.id = c.frame_id
), inclusive AS (
    SELECT n.name, sum(o.gpu_ns) AS gpu_ns, sum(o.launches) AS launches
    FROM named AS n
    JOIN code_origin AS o ON o.frame_id = n.origin_id
    GROUP BY n.name
), own AS (
    SELECT f.name, sum(o.gpu_ns) AS gpu_ns, sum(o.launches) AS launches
    FROM code_origin AS o
    JOIN python_frames AS f ON f.id = o.frame_id
    GROUP BY f.name
), users AS (
    SELECT name, bool_or(user_code) AS user_code FROM python_frames GROUP BY name
)
SELECT i.name AS frame, u.user_code, CAST(i.gpu_ns AS BIGINT) AS gpu_ns,
       CAST(coalesce(s.gpu_ns, 0) AS BIGINT) AS self_gpu_ns,
       CAST(i.launches AS BIGINT) AS launches,
       CAST(coalesce(s.launches, 0) AS BIGINT) AS self_launches
FROM inclusive AS i
JOIN users AS u USING (name)
LEFT JOIN own AS s USING (name)
ORDER BY gpu_ns DESC, frame;
