-- Params: none
-- Needs: table scratch.kineto_events
-- The parsed Kineto events that are GPU work, with their device: complete events of a GPU
-- category (older Kineto spelt them Kernel/Memcpy/Memset), a usable time and a device.
-- Kineto writes pid = device; args.device says the same where present and wins. The rows
-- of the view staged_gpu (kineto_gpu_activities.sql, its slot {gpu_events}), and those
-- kineto_event_counts.sql counts (gpu_events, its slot {gpu_events}).
-- Columns: kineto_events' (kineto_events_table.sql), device
SELECT *
FROM (
    -- args' fields were read as text when the events were parsed (TRY_CAST decides)
    SELECT *, coalesce(TRY_CAST(args.device AS INTEGER),
                       TRY_CAST(regexp_extract(pid, '\d+') AS INTEGER)) AS device
    FROM scratch.kineto_events
    WHERE ph = 'X'
      AND cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'memcpy', 'memset')
      AND start_ns IS NOT NULL AND duration_ns >= 0
      -- start and end within ±2^62 ns, so no difference of two times overflows
      AND start_ns >= -4611686018427387903
      AND start_ns::HUGEINT + duration_ns <= 4611686018427387903
)
WHERE device IS NOT NULL
