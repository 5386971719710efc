-- Run inside the Nsight Systems SQLite export: CUDA runtime/driver API calls.
-- globalTid packs the process id in bits 24..47 and the thread id in bits 0..23.
SELECT
    'runtime' AS kind,
    CAST((r.globalTid >> 24) & 16777215 AS INTEGER) AS pid,
    CAST(r.globalTid & 16777215 AS INTEGER) AS tid,
    CAST(r.start AS INTEGER) AS start_ns,
    CAST(r."end" AS INTEGER) AS end_ns,
    s.value AS name,
    CAST(r.correlationId AS INTEGER) AS correlation
FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r
LEFT JOIN StringIds AS s ON s.id = r.nameId
