-- Params: $max_bytes
-- Needs: temp table kineto_events_more
-- What the Kineto `[memory]` events held that memory_events could not take, for warnings
-- (see kineto_memory_events.sql). $max_bytes: the largest total believed.
-- Columns: events, unusable (no time, device or total, or a total out of range),
-- other_device (a "Device Type" that is neither 0, the host, nor 1, CUDA)
SELECT count(*) AS events,
       count(*) FILTER (WHERE start_ns IS NULL
           OR (TRY_CAST(args."Device Type" AS INTEGER) IS DISTINCT FROM 0
               AND TRY_CAST(args."Device Id" AS INTEGER) IS NULL)
           OR TRY_CAST(args."Total Allocated" AS BIGINT) IS NULL
           OR NOT TRY_CAST(args."Total Allocated" AS BIGINT) BETWEEN 0 AND $max_bytes
           OR NOT coalesce(TRY_CAST(args."Total Reserved" AS BIGINT), 0) BETWEEN 0 AND $max_bytes
       ) AS unusable,
       count(*) FILTER (WHERE TRY_CAST(args."Device Type" AS INTEGER) IS DISTINCT FROM 0
                          AND TRY_CAST(args."Device Type" AS INTEGER) IS DISTINCT FROM 1)
           AS other_device
FROM kineto_events_more
WHERE ph = 'i';
