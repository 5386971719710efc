-- Params: {calls}, {chain}
-- Needs: sqlite OSRT_API
-- Run inside the Nsight Systems SQLite export (a report recorded with -t osrt): every OS
-- runtime library call, its thread, times, name (an id into StringIds) and backtrace
-- ({chain}: OSRT_CALLCHAINS.id, or NULL where the export has no such column). Only the
-- calls themselves ({calls}: eventClass 27, TRACE_PROCESS_EVENT_OS_RUNTIME, as `nsys stats
-- -r osrt_sum` reads them), not the markers of OS runtime tracing's start and finish.
SELECT
    CAST(o.globalTid AS INTEGER) AS global_tid,
    CAST(o.start AS INTEGER) AS start_ns,
    CAST(o."end" AS INTEGER) AS end_ns,
    CAST(o.nameId AS INTEGER) AS name_id,
    CAST({chain} AS INTEGER) AS ref
FROM OSRT_API AS o
WHERE {calls}
