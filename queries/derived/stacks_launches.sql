-- Params: none
-- Needs: temp table stacks_found, temp table stacks_points
-- Write launches from stacks_points (stacks_points.sql) and what
-- tui/derived/nesting.py found for them (k 1: kind 'cpu_op'; k 2: the kind python_frames
-- was filled from). stacks_found holds at most one row for each point and
-- kind, so each kind is one join, not a grouping: grouping 15.7M launches (a 3 GB nsys
-- export) took 4.0 s, the joins 2.0 s.
INSERT INTO launches
SELECT p.point_id AS gpu_id, p.runtime_id, o.host_id AS op_id, f.host_id AS frame_id
FROM (SELECT * FROM stacks_points WHERE NOT is_memory) AS p
LEFT JOIN (SELECT point_id, host_id FROM stacks_found
           WHERE NOT is_memory AND k = 1) AS o USING (point_id)
LEFT JOIN (SELECT point_id, host_id FROM stacks_found
           WHERE NOT is_memory AND k = 2) AS f USING (point_id)
ORDER BY gpu_id;
