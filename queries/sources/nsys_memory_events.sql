-- Params: $max_bytes
-- Needs: arrow nsys_cuda_devices, arrow nsys_memory
-- nsys CUDA memory usage events (registered as nsys_memory, from nsys_sqlite_memory.sql)
-- into memory_events, numbered in time order per device. The totals are running sums of
-- what the report saw allocated and freed (memory held before it started is not in
-- them); nsys knows nothing of a caching allocator's reserve, so total_reserved is NULL.
-- The thread is the one of the API call with the event's correlation id. A GPU is its id,
-- not its process's CUDA device number (nsys_cuda_devices: nsys_sqlite_cuda_devices.sql).
-- Events with a size below zero or above $max_bytes, no time or an unknown operation are
-- left out (the loader counts them for a warning).
INSERT INTO memory_events
SELECT row_number() OVER () - 1 AS id, *
FROM (
    SELECT device_type, device, ts_ns, signed AS bytes,
           sum(signed) OVER w AS total_allocated, NULL::BIGINT AS total_reserved, addr,
           pid, tid, NULL::BIGINT AS op_id, NULL::BIGINT AS frame_id
    FROM (
        SELECT CASE WHEN m.mem_kind IN (0, 1) THEN 'host' ELSE 'gpu' END AS device_type,
               CASE WHEN m.mem_kind IN (0, 1) THEN -1
                    ELSE coalesce((SELECT d.gpu_id FROM nsys_cuda_devices AS d
                                   WHERE d.pid = (m.global_pid >> 24) & 16777215
                                     AND d.cuda_id = m.device), m.device) END AS device,
               m.ts_ns, m.addr,
               CASE m.operation WHEN 0 THEN m.bytes ELSE -m.bytes END AS signed,
               coalesce(h.pid, (m.global_pid >> 24) & 16777215) AS pid, h.tid,
               row_number() OVER () AS ord
        FROM nsys_memory AS m
        LEFT JOIN (
            SELECT correlation, any_value(pid) AS pid, any_value(tid) AS tid
            FROM host_activities
            WHERE kind = 'runtime' AND correlation IS NOT NULL
            GROUP BY correlation
        ) AS h USING (correlation)
        WHERE m.ts_ns IS NOT NULL AND m.operation IN (0, 1)
          AND m.bytes BETWEEN 0 AND $max_bytes AND m.device IS NOT NULL
    )
    WINDOW w AS (PARTITION BY device_type, device ORDER BY ts_ns, ord
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
    ORDER BY device_type, device, ts_ns, ord
);
