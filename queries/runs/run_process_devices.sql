-- Params: {store}
-- Needs: table {store}.gpu_activities
-- The processes of one store (an nsys report of a multi-process job) that ran GPU work,
-- each with its GPU: nsys' correlation ids are each process's own (pid * 2^32 + CorrId,
-- tui/sources/nsys_sqlite.py), so a GPU activity's process is its correlation's high
-- bits. A process that ran work on several GPUs is left out (it is no one rank).
-- Columns: pid, device; by device.
SELECT correlation >> 32 AS pid, min(device) AS device
FROM {store}.gpu_activities
WHERE correlation IS NOT NULL
GROUP BY pid
HAVING count(DISTINCT device) = 1
ORDER BY device;
