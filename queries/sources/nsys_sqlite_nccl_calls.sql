-- Params: {text_id}
-- Needs: sqlite NVTX_EVENTS, sqlite StringIds
-- Run inside the Nsight Systems SQLite export: NCCL's NVTX ranges that carry their
-- payload as JSON (NCCL 2.19 on marks each call with its communicator and message size,
-- and each communicator's initialisation with its ranks; an export keeps them as JSON
-- with `--include-json=true`, as tui's own export of a .nsys-rep asks for).
-- Columns: global_tid, start_ns, end_ns, name ('ncclAllReduce', …), payload (JSON text).
SELECT
    CAST(n.globalTid AS INTEGER) AS global_tid,
    CAST(n.start AS INTEGER) AS start_ns,
    CAST(n."end" AS INTEGER) AS end_ns,
    coalesce(n.text, s.value) AS name,
    n.jsonText AS payload
FROM NVTX_EVENTS AS n
LEFT JOIN StringIds AS s ON s.id = {text_id}
WHERE n.jsonText IS NOT NULL AND n."end" IS NOT NULL AND n."end" >= n.start
  AND coalesce(n.text, s.value) LIKE 'nccl%'
