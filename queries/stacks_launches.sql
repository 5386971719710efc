-- Write launches from stacks_points (stacks_points.sql) and what
-- tui/sources/nesting.py found for them (kind 'cpu_op', and $frame_kind: the kind
-- python_frames was filled from).
INSERT INTO launches
SELECT p.point_id AS gpu_id, p.runtime_id,
       max(f.host_id) FILTER (WHERE f.kind = 'cpu_op') AS op_id,
       max(f.host_id) FILTER (WHERE f.kind = $frame_kind) AS frame_id
FROM (SELECT * FROM stacks_points WHERE what = 'launch') AS p
LEFT JOIN (SELECT * FROM stacks_found WHERE what = 'launch') AS f USING (point_id)
GROUP BY p.point_id, p.runtime_id
ORDER BY gpu_id;
