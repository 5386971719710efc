-- Params: {domains}
-- Needs: sqlite NVTX_EVENTS
-- Run inside the Nsight Systems SQLite export (a report recorded with
-- --python-backtrace=cuda): the Python backtrace nsys took at a CUDA API call, one row a
-- call: its thread, when it was taken (the call's start) and its frames as the JSON text
-- the export keeps only when written with --include-json=true (NULL otherwise). They are
-- marks (eventType 34) of the domains whose payload schema is "Python Backtrace on CUDA"
-- ({domains}: their ids, nsys_sqlite_python_domains.sql).
SELECT
    CAST(n.globalTid AS INTEGER) AS global_tid,
    CAST(n.start AS INTEGER) AS start_ns,
    n.jsonText AS frames_json
FROM NVTX_EVENTS AS n
WHERE n.eventType = 34 AND n.domainId IN ({domains})
