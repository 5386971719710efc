-- Params: none
-- Needs: sqlite CUPTI_ACTIVITY_KIND_KERNEL
-- Run inside the Nsight Systems SQLite export: how many processes ran kernels (a report of
-- a multi-process job, e.g. torchrun's ranks, holds several). pid as in
-- nsys_sqlite_threads.sql. Columns: processes
SELECT count(DISTINCT (globalPid >> 24) & 16777215) AS processes
FROM CUPTI_ACTIVITY_KIND_KERNEL;
