-- Params: {text_id}
-- Needs: sqlite NVTX_EVENTS, sqlite StringIds
-- Run inside the Nsight Systems SQLite export: NVTX push/pop and start/end ranges
-- (marks, which have no end, are left out). Text is inline or an id into StringIds.
SELECT
    CAST(n.globalTid AS INTEGER) AS global_tid,
    CAST(n.start AS INTEGER) AS start_ns,
    CAST(n."end" AS INTEGER) AS end_ns,
    coalesce(n.text, s.value, '') AS name,
    CAST(NULL AS INTEGER) AS correlation
FROM NVTX_EVENTS AS n
LEFT JOIN StringIds AS s ON s.id = {text_id}
WHERE n."end" IS NOT NULL AND n."end" >= n.start AND n.eventType IN (59, 60, 70, 71)
