-- Params: none
-- Needs: temp table code_chain, temp table code_origin
-- GPU time by call path (top-down), after code_origin.sql and code_chain.sql: one row per
-- distinct path of frame names from a thread's outermost frame that led to GPU work. node
-- and parent are hashes of the path (parent NULL at the top).
-- Columns: node, parent, depth, frame, user_code, gpu_ns, self_gpu_ns, launches,
--          frame_ids (the python_frames ids of the path's frames)
WITH RECURSIVE kept AS (
    SELECT f.id, f.parent_id, f.name, f.user_code
    FROM python_frames AS f
    WHERE f.id IN (SELECT frame_id FROM code_chain)
), paths(frame_id, node, parent, depth) AS (
    SELECT id, hash(name), NULL::UBIGINT, 0 FROM kept WHERE parent_id IS NULL
    UNION ALL
    SELECT k.id, hash(p.node, k.name), p.node, p.depth + 1
    FROM paths AS p
    JOIN kept AS k ON k.parent_id = p.frame_id
), inclusive AS (
    SELECT p.node, sum(o.gpu_ns) AS gpu_ns, sum(o.launches) AS launches
    FROM code_chain AS c
    JOIN paths AS p ON p.frame_id = c.frame_id
    JOIN code_origin AS o ON o.frame_id = c.origin_id
    GROUP BY p.node
), own AS (
    SELECT p.node, sum(o.gpu_ns) AS gpu_ns
    FROM code_origin AS o
    JOIN paths AS p ON p.frame_id = o.frame_id
    GROUP BY p.node
), named AS (
    SELECT p.node, any_value(p.parent) AS parent, any_value(p.depth) AS depth,
           any_value(k.name) AS frame, bool_or(k.user_code) AS user_code,
           list(p.frame_id) AS frame_ids
    FROM paths AS p
    JOIN kept AS k ON k.id = p.frame_id
    GROUP BY p.node
)
SELECT n.node, n.parent, n.depth, n.frame, n.user_code, CAST(i.gpu_ns AS BIGINT) AS gpu_ns,
       CAST(coalesce(s.gpu_ns, 0) AS BIGINT) AS self_gpu_ns, CAST(i.launches AS BIGINT),
       n.frame_ids
FROM named AS n
JOIN inclusive AS i USING (node)
LEFT JOIN own AS s USING (node)
ORDER BY n.depth, gpu_ns DESC, n.frame;
