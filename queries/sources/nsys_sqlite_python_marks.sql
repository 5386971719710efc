-- Params: {domains}
-- Needs: sqlite NVTX_EVENTS
-- Run inside the Nsight Systems SQLite export: the marks (eventType 34) that hold Python's
-- stacks, of the domains in {domains} (their ids, nsys_sqlite_python_domains.sql: the
-- backtraces taken at CUDA calls, --python-backtrace=cuda, or the samples,
-- --python-sampling=true), each with its thread, when it was taken (a backtrace: its
-- call's start) and its payload (thread state, frames) as the JSON text the export keeps
-- only when written with --include-json=true (NULL otherwise).
SELECT
    CAST(n.globalTid AS INTEGER) AS global_tid,
    CAST(n.start AS INTEGER) AS start_ns,
    n.jsonText AS json
FROM NVTX_EVENTS AS n
WHERE n.eventType = 34 AND n.domainId IN ({domains})
