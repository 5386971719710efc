-- Params: {gpu_events}
-- Needs: table scratch.kineto_events
-- What the staged Kineto events hold, for warnings: complete events without a usable
-- time (none, a negative duration, or a start or end beyond ±2^62 ns, where times could
-- overflow int64 when subtracted),
-- and begin/end pairs (not loaded); and how many events the optional tables are read
-- from (a table whose events are absent is not queried): the collectives'
-- record_param_comms ops (kineto_collectives.sql), the CPU ops with shapes or FLOPs
-- (kineto_gemm_shapes.sql, kineto_op_flops.sql; their fields in args_more, read as
-- kineto_events_more reads them).
-- And whether any GPU work is there: the rows the view staged_gpu
-- (kineto_gpu_activities.sql) would hold, {gpu_events} (kineto_gpu_events.sql); asking the
-- view itself took ~2.5 ms of a DDP rank's load, most of it the view's plan.
-- Columns: complete_events, unusable_times, begin_end_events, comm_records, shaped_ops,
--          gpu_events
SELECT
    count(*) FILTER (WHERE ph = 'X') AS complete_events,
    count(*) FILTER (WHERE ph = 'X' AND (start_ns IS NULL OR duration_ns IS NULL OR duration_ns < 0
                                   OR start_ns < -4611686018427387903
                                   OR start_ns::HUGEINT + duration_ns > 4611686018427387903))
        AS unusable_times,
    count(*) FILTER (WHERE ph IN ('B', 'E')) AS begin_end_events,
    count(*) FILTER (WHERE ph = 'X' AND cat = 'cpu_op' AND name = 'record_param_comms')
        AS comm_records,
    count(*) FILTER (WHERE ph = 'X' AND cat = 'cpu_op'
                       AND (more.flops IS NOT NULL OR more."Input Dims" IS NOT NULL))
        AS shaped_ops,
    (SELECT count(*) FROM ({gpu_events})) AS gpu_events
FROM (SELECT *, TRY_CAST(args_more AS kineto_event_more_args) AS more
      FROM scratch.kineto_events);
