-- Host work in an XLA profile's staged events (xla_events), as the view staged_host that
-- finalize_activities.sql writes out: the complete events of the '/host:...' processes
-- (xla_pids, role 'host'), in the order of the window below: by thread, then time. The events carry no category, so the kind is
-- read from what the profiler attaches to each (checked against real JAX 0.11 profiles):
--   python      '$file.py:line function': JAX's Python tracer
--   runtime     a correlation_id: a CUDA driver call seen by CUPTI, named after what it
--               launched (cuGraphLaunch, a kernel's name, MemcpyH2D, Memset); the GPU
--               side of the same call is on the device's stream thread. A host
--               'MemcpyH2D' is this call, not the copy: it is never GPU work here.
--   annotation  a step_num: jax.profiler.StepTraceAnnotation; or a TraceMe opened from
--               Python (jax.profiler.TraceAnnotation): one with no source location
--               (_src) whose first nested event on its thread is a Python function
--   cpu_op      the rest: XLA's and PJRT's TraceMes (executable runs, thunks, HLO ops
--               such as 'command_buffer_1', compile passes such as 'algsimp')
CREATE TEMP VIEW staged_host (
    kind, pid, tid, start_ns, end_ns, duration_ns, name, correlation, depth
) AS
WITH host AS (
    SELECT pid, tid, ts, dur, name, args,
           -- the next event to start on the thread (longest first at equal starts)
           lead(ts) OVER thread AS next_ts, lead(name) OVER thread AS next_name
    FROM xla_events
    JOIN xla_pids AS p USING (pid)
    WHERE ph = 'X' AND p.role = 'host'
      AND dur >= 0 AND tid IS NOT NULL
      AND xla_ns(ts) BETWEEN -4611686018427387903 AND 4611686018427387903
      AND xla_ns(ts)::HUGEINT + xla_ns(dur) <= 4611686018427387903
    WINDOW thread AS (PARTITION BY pid, tid ORDER BY ts, dur DESC, name)
)
SELECT
    CASE
        WHEN starts_with(name, '$') THEN 'python'
        WHEN args.correlation_id IS NOT NULL THEN 'runtime'
        WHEN args.step_num IS NOT NULL THEN 'annotation'
        WHEN args._src IS NULL AND next_ts < ts + dur AND starts_with(next_name, '$')
            THEN 'annotation'
        ELSE 'cpu_op'
    END AS kind,
    pid, tid, xla_ns(ts) AS start_ns, xla_ns(ts) + xla_ns(dur) AS end_ns, xla_ns(dur),
    name, TRY_CAST(args.correlation_id AS BIGINT), 0
FROM host;
