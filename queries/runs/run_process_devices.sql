-- Params: {store}
-- Needs: table {store}.gpu_activities
-- The processes of one store (an nsys report of a multi-process job) that ran GPU work,
-- each with its GPU: nsys' correlation ids are each process's own (pid * 2^32 + CorrId,
-- tui/sources/nsys_sqlite.py), so a GPU activity's process is its correlation's high
-- bits. A process that ran work on several GPUs is left out (it is no one rank). No row
-- where two of them share a GPU (jobs on one GPU, not ranks: the store stays one trace,
-- shared_devices.sql).
-- Columns: pid, device; by device.
WITH processes AS (
    SELECT correlation >> 32 AS pid, min(device) AS device
    FROM {store}.gpu_activities
    WHERE correlation IS NOT NULL
    GROUP BY pid
    HAVING count(DISTINCT device) = 1
)
SELECT pid, device
FROM processes
WHERE (SELECT count(*) = count(DISTINCT device) FROM processes)
ORDER BY device;
