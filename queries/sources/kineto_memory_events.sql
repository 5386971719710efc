-- Params: $max_bytes
-- Needs: temp table kineto_events_more, temp macro kineto_int_id
-- Kineto `[memory]` instant events (profile_memory=True) into memory_events, numbered in
-- time order per device. "Device Type" 1 is CUDA ('gpu'), 0 the host's allocator ('host'),
-- any other value 'other' (the loader warns). Each event's size is the step in "Total
-- Allocated" from the device's previous event (the reader cannot take "Bytes": see
-- kineto_events_table.sql); Kineto writes the total after the event, so the step is the
-- event's own size, and the first event of each device has none (NULL).
-- Events without a usable time, device or total, or with a total below zero or above
-- $max_bytes, are left out (kineto_memory_counts.sql counts them for the warning).
INSERT INTO memory_events
SELECT row_number() OVER () - 1 AS id, *
FROM (
    SELECT device_type, device, ts_ns,
           total_allocated - lag(total_allocated) OVER w AS bytes,
           total_allocated, total_reserved, addr, pid, tid,
           NULL::BIGINT AS op_id, NULL::BIGINT AS frame_id
    FROM (
        SELECT CASE TRY_CAST(args."Device Type" AS INTEGER) WHEN 1 THEN 'gpu' WHEN 0 THEN 'host'
                    ELSE 'other' END AS device_type,
               CASE WHEN TRY_CAST(args."Device Type" AS INTEGER) = 0 THEN -1
                    ELSE TRY_CAST(args."Device Id" AS INTEGER) END AS device,
               start_ns AS ts_ns,
               TRY_CAST(args."Total Allocated" AS BIGINT) AS total_allocated,
               TRY_CAST(args."Total Reserved" AS BIGINT) AS total_reserved,
               TRY_CAST(args."Addr" AS BIGINT) AS addr,
               -- the first integer in the text (kineto_macros.sql)
               kineto_int_id(pid) AS pid,
               kineto_int_id(tid) AS tid,
               event_row AS ord  -- the file's order (a row_number() here ran on one thread)
        FROM kineto_events_more
        WHERE ph = 'i'
    )
    WHERE ts_ns IS NOT NULL AND device IS NOT NULL
      AND total_allocated BETWEEN 0 AND $max_bytes
      AND (total_reserved IS NULL OR total_reserved BETWEEN 0 AND $max_bytes)
    WINDOW w AS (PARTITION BY device_type, device ORDER BY ts_ns, ord)
    ORDER BY device_type, device, ts_ns, ord
);
