-- Params: {mem_kind}, {process}
-- Needs: sqlite CUPTI_ACTIVITY_KIND_MEMSET
-- Run inside the Nsight Systems SQLite export: memsets in our column shape (the columns
-- only kernels or copies have are left out). memKind, the memory set, is also kept in
-- dst_kind (NULL when the export has no memKind). The correlation id is made the
-- process's own as in nsys_sqlite_kernels.sql.
SELECT
    CAST(deviceId AS INTEGER) AS device,
    CAST(streamId AS INTEGER) AS stream,
    CAST(start AS INTEGER) AS start_ns,
    CAST("end" AS INTEGER) AS end_ns,
    'Memset (' || CASE {mem_kind}
        WHEN 0 THEN 'Pageable' WHEN 1 THEN 'Pinned' WHEN 2 THEN 'Device' WHEN 3 THEN 'Array'
        WHEN 4 THEN 'Managed' ELSE 'Device' END || ')' AS name,
    CAST(correlationId AS INTEGER) + ({process} << 32) AS correlation,
    CAST(bytes AS INTEGER) AS bytes,
    CASE {mem_kind}
        WHEN 0 THEN 'Pageable' WHEN 1 THEN 'Pinned' WHEN 2 THEN 'Device' WHEN 3 THEN 'Array'
        WHEN 4 THEN 'Managed' WHEN 5 THEN 'Device Static' WHEN 6 THEN 'Managed Static'
    END AS dst_kind
FROM CUPTI_ACTIVITY_KIND_MEMSET
