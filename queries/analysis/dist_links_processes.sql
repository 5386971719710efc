-- Params: none
-- Needs: temp table dist_owner_counts
-- Each GPU activity's launch call, as the table macro dist_links(since, until) over the
-- activities of ids [since, until) (dist_work.sql reads it a part of the ids at a time),
-- where the trace may hold several processes (an nsys report of a multi-process job, an
-- XLA trace): a correlation id names one call in a process, and each process numbers its
-- own, so the ids meet. A device's work is linked to the calls of the process whose calls
-- always began before the work they name (another's, in lockstep, as often after: counted
-- by dist_owner_counts.sql), and among those to the one that began last before it.
-- The call's fields come along, so that dist_work joins the GPU rows once, but not its name
-- (NULL: dist_work reads names only where it counts HTA's launch calls, in Kineto traces):
-- the fewer bytes a row, the less the grouping holds.
-- Columns: gpu_id (gpu_activities.id), call (id, name, start_ns, end_ns, pid, tid: the
--          call's host_activities row).
CREATE OR REPLACE TEMP TABLE dist_owners AS  -- the process that launches a device's work
SELECT device, arg_max(pid, share * 1e9 + calls) AS pid
FROM (SELECT device, pid, sum(before) / sum(calls) AS share, sum(calls) AS calls
      FROM dist_owner_counts
      GROUP BY device, pid)
GROUP BY device;

DROP TABLE dist_owner_counts;

CREATE OR REPLACE TEMP MACRO dist_links(since, until) AS TABLE
WITH candidates AS (  -- each activity with every runtime call of its correlation id
    SELECT g.id AS gpu_id, g.device, g.start_ns AS gpu_start_ns, r.id AS call_id, r.pid,
           r.tid, r.start_ns, r.end_ns
    FROM gpu_activities AS g
    JOIN host_activities AS r ON r.correlation = g.correlation AND r.kind = 'runtime'
    WHERE g.correlation IS NOT NULL AND g.id >= since AND g.id < until
)
-- of a work's candidates: its device's owner's, begun before it, the last (then the first
-- call, where those tie)
SELECT c.gpu_id,
       arg_min({'id': c.call_id, 'name': NULL::VARCHAR, 'start_ns': c.start_ns,
                'end_ns': c.end_ns, 'pid': c.pid, 'tid': c.tid},
               (coalesce(c.pid <> o.pid, TRUE), c.start_ns > c.gpu_start_ns,
                c.gpu_start_ns - c.start_ns, c.call_id)) AS call
FROM candidates AS c
JOIN dist_owners AS o USING (device)
GROUP BY c.gpu_id;
