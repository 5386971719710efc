-- Params: none
-- Needs: schema
-- Each GPU activity's launch call, as the table macro dist_links(since, until) over the
-- activities of ids [since, until), for a trace of one process (Kineto) whose launches
-- table is there (a cache's always is): the call launches.runtime_id names, the same as
-- dist_links.sql's (the runtime or driver call of the activity's correlation id; of
-- several, the first by id), read from the launches the load tied up once. dist_links.sql
-- joins each part's activities to every runtime call by correlation, so the calls were
-- read once a part: a 10 GB trace's five parts took 3.8 s against 0.7 s here.
-- Columns: gpu_id (gpu_activities.id), call (id, name, start_ns, end_ns, pid, tid: the
--          call's host_activities row; the name without an nsys-style API version
--          suffix, 'cudaLaunchKernel_v7000').
CREATE OR REPLACE TEMP MACRO dist_links(since, until) AS TABLE
SELECT l.gpu_id,
       {'id': r.id, 'name': regexp_replace(r.name, '_v[0-9]+$', ''), 'start_ns': r.start_ns,
        'end_ns': r.end_ns, 'pid': r.pid, 'tid': r.tid} AS call
FROM launches AS l
JOIN host_activities AS r ON r.id = l.runtime_id
WHERE l.gpu_id >= since AND l.gpu_id < until;
