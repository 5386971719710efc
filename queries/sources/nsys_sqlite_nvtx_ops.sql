-- Params: {text_id}
-- Needs: sqlite NVTX_EVENTS, sqlite StringIds
-- Run inside the Nsight Systems SQLite export: the NVTX ranges that PyTorch's
-- `torch.autograd.profiler.emit_nvtx()` opens around each op it runs (its RecordFunction
-- callbacks, as Kineto records `cpu_op` events), named `<op>, seq = N, op_id = N` or
-- `<op>, op_id = N` (and, with record_shapes, `, sizes = […]` after): each as the op,
-- its name cut before the numbers that make every range's name its own.
SELECT
    CAST(t.globalTid AS INTEGER) AS global_tid,
    CAST(t.start AS INTEGER) AS start_ns,
    CAST(t."end" AS INTEGER) AS end_ns,
    substr(t.text, 1, CASE WHEN instr(t.text, ', seq = ') > 0
                           THEN instr(t.text, ', seq = ') - 1
                           ELSE instr(t.text, ', op_id = ') - 1 END) AS name,
    CAST(NULL AS INTEGER) AS correlation
FROM (SELECT n.globalTid, n.start, n."end", coalesce(n.text, s.value, '') AS text
      FROM NVTX_EVENTS AS n
      LEFT JOIN StringIds AS s ON s.id = {text_id}
      WHERE n."end" IS NOT NULL AND n."end" >= n.start
        AND n.eventType IN (59, 60, 70, 71)) AS t
WHERE t.text GLOB '*, op_id = [0-9]*'
