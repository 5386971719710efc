-- GPU work from the staged Kineto events into gpu_activities.
-- Kineto writes pid = device and tid = stream; args.device/args.stream say the same
-- where present and win. Older Kineto spelt the categories Kernel/Memcpy/Memset.
INSERT INTO gpu_activities
SELECT
    0 AS id,
    kind, device, stream, start_ns, end_ns, end_ns - start_ns AS duration_ns, name, correlation,
    grid_x, grid_y, grid_z, block_x, block_y, block_z,
    registers_per_thread, shared_memory_bytes, bytes,
    CASE WHEN kind = 'memcpy' THEN regexp_extract(name, '(HtoD|DtoH|DtoD|HtoH|PtoP)') END,
    CASE WHEN kind = 'memcpy' THEN nullif(regexp_extract(name, '\(([A-Za-z ]+) ->', 1), '') END,
    CASE WHEN kind = 'memcpy' THEN nullif(regexp_extract(name, '-> ([A-Za-z ]+)\)', 1), '') END
FROM (
    SELECT
        CASE cat
            WHEN 'kernel' THEN 'kernel'
            WHEN 'gpu_memcpy' THEN 'memcpy'
            WHEN 'memcpy' THEN 'memcpy'
            ELSE 'memset'
        END AS kind,
        coalesce(arg_device, TRY_CAST(regexp_extract(pid, '\d+') AS INTEGER)) AS device,
        coalesce(arg_stream, TRY_CAST(regexp_extract(tid, '\d+') AS BIGINT)) AS stream,
        start_ns,
        start_ns + duration_ns AS end_ns,
        name, correlation, grid_x, grid_y, grid_z, block_x, block_y, block_z,
        registers_per_thread, shared_memory_bytes, bytes
    FROM kineto_events
    WHERE ph = 'X'
      AND cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'memcpy', 'memset')
      AND start_ns IS NOT NULL AND duration_ns >= 0
)
WHERE device IS NOT NULL;
