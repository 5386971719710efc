-- Each GPU activity's launch call, as the temp view dist_links (dist_work.sql reads
-- it), where the trace may hold several processes (an nsys report of a multi-process
-- job, an XLA trace): a correlation id names one call in a process, and each process
-- numbers its own, so the ids meet. A device's work is linked to the calls of the process
-- whose calls always began before the work they name (another's, in lockstep, as often
-- after), and among those to the one that began last before it.
-- The call's fields come along, so that dist_work joins the GPU rows once, but not its name
-- (NULL: dist_work reads names only where it counts HTA's launch calls, in Kineto traces):
-- the fewer bytes a row, the less the grouping spills (a 3 GB nsys export's 15.7M: 35 s
-- under the summary's 286 MiB, 51 s with the names).
-- Columns: gpu_id (gpu_activities.id), call (id, name, start_ns, end_ns, pid, tid: the
--          call's host_activities row).
CREATE OR REPLACE TEMP VIEW dist_links AS
WITH candidates AS (  -- each activity with every runtime call of its correlation id
    SELECT g.id AS gpu_id, g.device, g.start_ns AS gpu_start_ns, r.id AS call_id, r.pid,
           r.tid, r.start_ns, r.end_ns
    FROM gpu_activities AS g
    JOIN host_activities AS r ON r.correlation = g.correlation AND r.kind = 'runtime'
    WHERE g.correlation IS NOT NULL
), causal AS (  -- per device and process: the share of its candidates begun before the work
    SELECT device, pid, avg((start_ns <= gpu_start_ns)::INTEGER) AS share, count(*) AS n
    FROM candidates
    GROUP BY device, pid
), owners AS (  -- the process that launches a device's work: its calls always came first
    SELECT device, arg_max(pid, share * 1e9 + n) AS pid FROM causal GROUP BY device
), linked AS (  -- of a work's candidates: its device's owner's, begun before it, the last
    -- (then the first call, where those tie)
    SELECT c.gpu_id,
           arg_min({'id': c.call_id, 'name': NULL::VARCHAR, 'start_ns': c.start_ns,
                    'end_ns': c.end_ns, 'pid': c.pid, 'tid': c.tid},
                   (coalesce(c.pid <> o.pid, TRUE), c.start_ns > c.gpu_start_ns,
                    c.gpu_start_ns - c.start_ns, c.call_id)) AS call
    FROM candidates AS c
    JOIN owners AS o USING (device)
    GROUP BY c.gpu_id
)
SELECT gpu_id, call FROM linked;
