-- Params: {device}
-- Needs: sqlite CUPTI_ACTIVITY_KIND_KERNEL
-- Run inside the Nsight Systems SQLite export: how many processes ran kernels (a report of
-- a multi-process job, e.g. torchrun's ranks, holds several), or 1 where two processes
-- that each ran kernels on one GPU ran them on the same one: jobs sharing a GPU, not a
-- rank each (run_process_devices.sql). pid as in nsys_sqlite_threads.sql. {device}: the
-- GPU's id of a (pid, deviceId) pair, its process's CUDA device number (deviceId itself,
-- or as TARGET_INFO_CUDA_DEVICE maps it: nsys_sqlite_cuda_devices.sql).
-- Columns: processes
WITH numbered AS (
    SELECT DISTINCT (globalPid >> 24) & 16777215 AS pid, deviceId
    FROM CUPTI_ACTIVITY_KIND_KERNEL
), pairs AS (
    SELECT pid, {device} AS deviceId FROM numbered AS p
), single AS (
    SELECT pid, min(deviceId) AS device FROM pairs GROUP BY pid HAVING count(*) = 1
)
SELECT CASE WHEN (SELECT count(*) = count(DISTINCT device) FROM single)
            THEN (SELECT count(DISTINCT pid) FROM pairs) ELSE 1 END AS processes;
