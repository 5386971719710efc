-- What the staged Kineto events hold, for warnings: complete events without a usable
-- time, and begin/end pairs (not loaded).
SELECT
    count(*) FILTER (WHERE ph = 'X') AS complete_events,
    count(*) FILTER (WHERE ph = 'X' AND (start_ns IS NULL OR duration_ns IS NULL OR duration_ns < 0))
        AS unusable_times,
    count(*) FILTER (WHERE ph IN ('B', 'E')) AS begin_end_events
FROM kineto_events;
