-- Params: none
-- Needs: sqlite SCHED_EVENTS
-- Run inside the Nsight Systems SQLite export (a report recorded with --cpuctxsw): every
-- context switch of a thread, in or out. Integer columns only.
SELECT
    CAST(s.globalTid AS INTEGER) AS global_tid,
    CAST(s.start AS INTEGER) AS ts_ns,
    CAST(s.isSchedIn AS INTEGER) AS sched_in,
    CAST(s.cpu AS INTEGER) AS cpu
FROM SCHED_EVENTS AS s
