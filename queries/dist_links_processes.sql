-- Each GPU activity's launch call, as the temp view dist_links (dist_work.sql reads
-- it), where the trace may hold several processes (an nsys report of a multi-process
-- job, an XLA trace): a correlation id names one call in a process, and each process
-- numbers its own, so the ids meet. A device's work is linked to the calls of the process
-- whose calls always began before the work they name (another's, in lockstep, as often
-- after), and among those to the one that began last before it.
-- Columns: gpu_id (gpu_activities.id), call_id (host_activities.id).
CREATE OR REPLACE TEMP VIEW dist_links AS
WITH candidates AS (  -- each activity with every runtime call of its correlation id
    SELECT g.id AS gpu_id, g.device, g.start_ns AS gpu_start_ns, r.id AS call_id, r.pid,
           r.start_ns, r.end_ns
    FROM gpu_activities AS g
    JOIN host_activities AS r ON r.correlation = g.correlation AND r.kind = 'runtime'
    WHERE g.correlation IS NOT NULL
), causal AS (  -- per device and process: the share of its candidates begun before the work
    SELECT device, pid, avg((start_ns <= gpu_start_ns)::INTEGER) AS share, count(*) AS n
    FROM candidates
    GROUP BY device, pid
), owners AS (  -- the process that launches a device's work: its calls always came first
    SELECT device, arg_max(pid, share * 1e9 + n) AS pid FROM causal GROUP BY device
), linked AS (
    SELECT c.gpu_id, c.call_id
    FROM candidates AS c
    JOIN owners AS o USING (device)
    QUALIFY row_number() OVER (PARTITION BY c.gpu_id
                               ORDER BY c.pid = o.pid DESC, c.start_ns > c.gpu_start_ns,
                                        c.gpu_start_ns - c.start_ns) = 1
)
SELECT gpu_id, call_id FROM linked;
