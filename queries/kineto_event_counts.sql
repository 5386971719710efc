-- What the staged Kineto events hold, for warnings: events without a usable time,
-- and complete events of categories we do not load.
SELECT
    count(*) AS events,
    count(*) FILTER (WHERE ph = 'X' AND (start_ns IS NULL OR duration_ns IS NULL OR duration_ns < 0))
        AS unusable_times,
    count(*) FILTER (WHERE ph IN ('B', 'E')) AS begin_end_events
FROM kineto_events;
