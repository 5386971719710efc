-- Run inside the Nsight Systems SQLite export: memsets in our column shape.
SELECT
    'memset' AS kind,
    CAST(deviceId AS INTEGER) AS device,
    CAST(streamId AS INTEGER) AS stream,
    CAST(start AS INTEGER) AS start_ns,
    CAST("end" AS INTEGER) AS end_ns,
    'Memset (' || CASE {mem_kind}
        WHEN 0 THEN 'Pageable' WHEN 1 THEN 'Pinned' WHEN 2 THEN 'Device' WHEN 3 THEN 'Array'
        WHEN 4 THEN 'Managed' ELSE 'Device' END || ')' AS name,
    CAST(correlationId AS INTEGER) AS correlation,
    CAST(NULL AS INTEGER) AS name_id,
    CAST(NULL AS INTEGER) AS grid_x, CAST(NULL AS INTEGER) AS grid_y,
    CAST(NULL AS INTEGER) AS grid_z,
    CAST(NULL AS INTEGER) AS block_x, CAST(NULL AS INTEGER) AS block_y,
    CAST(NULL AS INTEGER) AS block_z,
    CAST(NULL AS INTEGER) AS registers_per_thread,
    CAST(NULL AS INTEGER) AS shared_memory_bytes,
    CAST(bytes AS INTEGER) AS bytes,
    CAST(NULL AS TEXT) AS copy_kind,
    CAST(NULL AS TEXT) AS src_kind,
    CAST(NULL AS TEXT) AS dst_kind
FROM CUPTI_ACTIVITY_KIND_MEMSET
