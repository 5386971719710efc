-- Params: {callchain}, {process}
-- Needs: sqlite CUPTI_ACTIVITY_KIND_RUNTIME
-- Run inside the Nsight Systems SQLite export: CUDA runtime/driver API calls. Only plain
-- integer columns: over 10M+ rows, every text column SQLite hands over (even a constant
-- kind) costs seconds. The thread is split out of globalTid and the name (nameId, an id
-- into StringIds) looked up by the loader. Where the report was recorded with
-- --cudabacktrace, the loader adds a column: callchain, the call's CUDA_CALLCHAINS id.
-- Each process numbers its own correlation ids, so the id is the pid * 2^32 + nsys's
-- CorrId ({process}; the GPU tables' the same): a process's calls link to its own work.
SELECT
    CAST(r.globalTid AS INTEGER) AS global_tid,
    CAST(r.start AS INTEGER) AS start_ns,
    CAST(r."end" AS INTEGER) AS end_ns,
    CAST(r.nameId AS INTEGER) AS name_id,
    CAST(r.correlationId AS INTEGER) + ({process} << 32) AS correlation{callchain}
FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r
