-- Params: none
-- Needs: sqlite COMPOSITE_EVENTS
-- Run inside the Nsight Systems SQLite export (a report recorded with --sample): every CPU
-- sample's id, thread (globalTid) and time. Integer columns only; the call chain is read
-- apart (nsys_sqlite_sample_frames.sql).
SELECT
    CAST(e.id AS INTEGER) AS sample,
    CAST(e.globalTid AS INTEGER) AS global_tid,
    CAST(e.start AS INTEGER) AS ts_ns
FROM COMPOSITE_EVENTS AS e
