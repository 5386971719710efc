-- Each GPU activity's launch call, as the temp view dist_links (dist_work.sql reads
-- it), for a trace of one process (Kineto): the runtime or driver call of its correlation
-- id (the store of a rank in a run may lack the launches table).
-- Columns: gpu_id (gpu_activities.id), call_id (host_activities.id).
CREATE OR REPLACE TEMP VIEW dist_links AS
SELECT g.id AS gpu_id, min(r.id) AS call_id
FROM gpu_activities AS g
JOIN host_activities AS r ON r.correlation = g.correlation AND r.kind = 'runtime'
WHERE g.correlation IS NOT NULL
GROUP BY g.id;
