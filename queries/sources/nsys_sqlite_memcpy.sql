-- Params: {dst_device}, {dst_kind}, {process}, {src_device}, {src_kind}
-- Needs: sqlite CUPTI_ACTIVITY_KIND_MEMCPY
-- Run inside the Nsight Systems SQLite export: memory copies in our column shape (the
-- columns only kernels have are left out).
-- copyKind and srcKind/dstKind are CUPTI enum values (stable across versions), spelt
-- the way Kineto names copies, e.g. 'Memcpy HtoD (Pageable -> Device)'. srcDeviceId and
-- dstDeviceId (peer copies; NULL otherwise) come when the export has them. The correlation
-- id is made the process's own as in nsys_sqlite_kernels.sql.
WITH copies AS (
    SELECT
        m.*,
        CASE m.copyKind
            WHEN 1 THEN 'HtoD' WHEN 2 THEN 'DtoH' WHEN 3 THEN 'HtoA' WHEN 4 THEN 'AtoH'
            WHEN 5 THEN 'AtoA' WHEN 6 THEN 'AtoD' WHEN 7 THEN 'DtoA' WHEN 8 THEN 'DtoD'
            WHEN 9 THEN 'HtoH' WHEN 10 THEN 'PtoP' WHEN 11 THEN 'HtoD' WHEN 12 THEN 'DtoH'
            WHEN 13 THEN 'DtoD' ELSE 'Unknown'
        END AS copy_kind,
        {src_kind} AS src_kind_code,
        {dst_kind} AS dst_kind_code,
        {src_device} AS src_device_id,
        {dst_device} AS dst_device_id
    FROM CUPTI_ACTIVITY_KIND_MEMCPY AS m
), named AS (
    SELECT
        copies.*,
        CASE src_kind_code
            WHEN 0 THEN 'Pageable' WHEN 1 THEN 'Pinned' WHEN 2 THEN 'Device' WHEN 3 THEN 'Array'
            WHEN 4 THEN 'Managed' WHEN 5 THEN 'Device Static' WHEN 6 THEN 'Managed Static'
        END AS src_kind,
        CASE dst_kind_code
            WHEN 0 THEN 'Pageable' WHEN 1 THEN 'Pinned' WHEN 2 THEN 'Device' WHEN 3 THEN 'Array'
            WHEN 4 THEN 'Managed' WHEN 5 THEN 'Device Static' WHEN 6 THEN 'Managed Static'
        END AS dst_kind
    FROM copies
)
SELECT
    CAST(deviceId AS INTEGER) AS device,
    CAST(streamId AS INTEGER) AS stream,
    CAST(start AS INTEGER) AS start_ns,
    CAST("end" AS INTEGER) AS end_ns,
    'Memcpy ' || copy_kind
        || CASE WHEN src_kind IS NOT NULL AND dst_kind IS NOT NULL
                THEN ' (' || src_kind || ' -> ' || dst_kind || ')' ELSE '' END AS name,
    CAST(correlationId AS INTEGER) + ({process} << 32) AS correlation,
    CAST(bytes AS INTEGER) AS bytes,
    copy_kind,
    src_kind,
    dst_kind,
    CAST(src_device_id AS INTEGER) AS src_device,
    CAST(dst_device_id AS INTEGER) AS dst_device
FROM named
