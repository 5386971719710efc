-- Params: none
-- Needs: schema
-- Each GPU activity's launch call, as the table macro dist_links(since, until) over the
-- activities of ids [since, until) (dist_work.sql reads it a part of the ids at a time),
-- for a trace of one process (Kineto) without a launches table (the store of a rank in a
-- run may lack it; where it is there, dist_links_launches.sql reads it): the runtime or
-- driver call of its correlation id; of several, the first.
-- Columns: gpu_id (gpu_activities.id), call (id, name, start_ns, end_ns, pid, tid: the
--          call's host_activities row; the name without an nsys-style API version
--          suffix, 'cudaLaunchKernel_v7000').
CREATE OR REPLACE TEMP MACRO dist_links(since, until) AS TABLE
SELECT l.gpu_id,
       {'id': r.id, 'name': regexp_replace(r.name, '_v[0-9]+$', ''), 'start_ns': r.start_ns,
        'end_ns': r.end_ns, 'pid': r.pid, 'tid': r.tid} AS call
FROM (
    SELECT g.id AS gpu_id, min(r.id) AS call_id
    FROM gpu_activities AS g
    JOIN host_activities AS r ON r.correlation = g.correlation AND r.kind = 'runtime'
    WHERE g.correlation IS NOT NULL AND g.id >= since AND g.id < until
    GROUP BY g.id
) AS l
JOIN host_activities AS r ON r.id = l.call_id;
