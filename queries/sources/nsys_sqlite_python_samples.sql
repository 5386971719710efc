-- Params: {domains}
-- Needs: sqlite NVTX_EVENTS
-- Run inside the Nsight Systems SQLite export (a report recorded with
-- --python-sampling=true): each Python sample, its thread, when it was taken and the
-- sample (thread state and frames) as the JSON text the export keeps only when written
-- with --include-json=true (NULL otherwise). They are marks (eventType 34) of the domains
-- whose payload schema is "Python Periodic Sampling" ({domains}: their ids,
-- nsys_sqlite_python_domains.sql).
SELECT
    CAST(n.globalTid AS INTEGER) AS global_tid,
    CAST(n.start AS INTEGER) AS ts_ns,
    n.jsonText AS sample_json
FROM NVTX_EVENTS AS n
WHERE n.eventType = 34 AND n.domainId IN ({domains})
