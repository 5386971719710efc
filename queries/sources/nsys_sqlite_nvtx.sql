-- Params: {text_id}
-- Needs: sqlite NVTX_EVENTS, sqlite StringIds
-- Run inside the Nsight Systems SQLite export: NVTX push/pop and start/end ranges
-- (marks, which have no end, are left out). Text is inline or an id into StringIds. The
-- ranges PyTorch's emit_nvtx() opens around its ops are nsys_sqlite_nvtx_ops.sql's.
SELECT
    CAST(n.globalTid AS INTEGER) AS global_tid,
    CAST(n.start AS INTEGER) AS start_ns,
    CAST(n."end" AS INTEGER) AS end_ns,
    coalesce(n.text, s.value, '') AS name,
    CAST(NULL AS INTEGER) AS correlation
FROM NVTX_EVENTS AS n
LEFT JOIN StringIds AS s ON s.id = {text_id}
WHERE n."end" IS NOT NULL AND n."end" >= n.start AND n.eventType IN (59, 60, 70, 71)
  AND coalesce(n.text, s.value, '') NOT GLOB '*, op_id = [0-9]*'
