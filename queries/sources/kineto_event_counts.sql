-- Params: none
-- Needs: table scratch.kineto_events
-- What the staged Kineto events hold, for warnings: complete events without a usable
-- time (none, a negative duration, or a start or end beyond ±2^62 ns, where times could
-- overflow int64 when subtracted),
-- and begin/end pairs (not loaded).
SELECT
    count(*) FILTER (WHERE ph = 'X') AS complete_events,
    count(*) FILTER (WHERE ph = 'X' AND (start_ns IS NULL OR duration_ns IS NULL OR duration_ns < 0
                                   OR start_ns < -4611686018427387903
                                   OR start_ns::HUGEINT + duration_ns > 4611686018427387903))
        AS unusable_times,
    count(*) FILTER (WHERE ph IN ('B', 'E')) AS begin_end_events
FROM scratch.kineto_events;
