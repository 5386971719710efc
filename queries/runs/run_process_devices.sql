-- Params: {store}
-- Needs: table {store}.gpu_activities
-- The processes of one store (an nsys report of a multi-process job) that ran GPU work,
-- each with its GPU: nsys' correlation ids are each process's own (pid * 2^32 + CorrId,
-- tui/sources/nsys_sqlite.py), so a GPU activity's process is its correlation's high
-- bits. A process is a rank of the GPU that ran 99% or more of its GPU time: DDP's ranks
-- that gather objects holding CUDA tensors (all_gather_object) each copy a few bytes onto
-- the other ranks' GPUs as they unpickle them there (`unannotated/ddp_gather_json.sqlite`:
-- 80 copies of 4 bytes a rank), and a process whose work is spread over several GPUs is
-- left out (it is no one rank). No row where two of them share a GPU (jobs on one GPU, not
-- ranks: the store stays one trace, shared_devices.sql).
-- Columns: pid, device; by device.
WITH per_device AS (
    SELECT correlation >> 32 AS pid, device, sum(end_ns - start_ns) AS ns
    FROM {store}.gpu_activities
    WHERE correlation IS NOT NULL
    GROUP BY pid, device
), processes AS (
    SELECT pid, arg_max(device, ns) AS device
    FROM per_device
    GROUP BY pid
    HAVING max(ns) >= 0.99 * sum(ns)
)
SELECT pid, device
FROM processes
WHERE (SELECT count(*) = count(DISTINCT device) FROM processes)
ORDER BY device;
