-- Run inside the Nsight Systems SQLite export: CUDA runtime/driver API calls. Only plain
-- columns: the thread is split out of globalTid and the name (nameId, an id into
-- StringIds) looked up in DuckDB, which does both faster than SQLite over 10M+ rows.
SELECT
    'runtime' AS kind,
    CAST(r.globalTid AS INTEGER) AS global_tid,
    CAST(r.start AS INTEGER) AS start_ns,
    CAST(r."end" AS INTEGER) AS end_ns,
    CAST(r.nameId AS INTEGER) AS name_id,
    CAST(NULL AS TEXT) AS name,
    CAST(r.correlationId AS INTEGER) AS correlation
FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r
