-- Host work in an XLA profile's staged events (xla_events), into the temp table xla_host,
-- in the events' order (tui/sources/xla_depth.py adds their depths from that order and
-- moves them to staged_host): the complete events of the '/host:...' processes
-- ($host_pids: their pids; a list lookup, not a join, which could reorder the rows). The events carry no category, so the kind is
-- read from what the profiler attaches to each (checked against real JAX 0.11 profiles):
--   python      '$file.py:line function': JAX's Python tracer
--   runtime     a correlation_id: a CUDA driver call seen by CUPTI, named after what it
--               launched (cuGraphLaunch, a kernel's name, MemcpyH2D, Memset); the GPU
--               side of the same call is on the device's stream thread. A host
--               'MemcpyH2D' is this call, not the copy: it is never GPU work here.
--   annotation  a step_num: jax.profiler.StepTraceAnnotation; or a TraceMe opened from
--               Python (jax.profiler.TraceAnnotation; JAX's own, such as shard_args,
--               too): one with no source location (_src) whose first nested event on
--               its thread (the next one in the file) is a Python function
--   cpu_op      the rest: XLA's and PJRT's TraceMes (executable runs, thunks, HLO ops
--               such as 'command_buffer_1', compile passes such as 'algsimp')
-- A StepTraceAnnotation's name gets its step number, as Kineto's 'ProfilerStep#3' has it:
-- 'train' becomes 'train step 3' ('train_step' 'train_step 3'), for `@ step 3` and steps
-- per rank.
CREATE OR REPLACE TEMP TABLE xla_host AS
WITH in_file_order AS (
    -- the event after each in the file (a streaming window: no sort). XLA writes a
    -- thread's events together, by start time, an enclosing event before those inside
    SELECT *, lead(pid) OVER () AS next_pid, lead(tid) OVER () AS next_tid,
              lead(ts) OVER () AS next_ts, lead(name) OVER () AS next_name
    FROM xla_events
), host AS (
    SELECT *
    FROM in_file_order
    WHERE ph = 'X' AND list_contains($host_pids, pid)
      AND dur >= 0 AND tid IS NOT NULL
      AND xla_ns(ts) BETWEEN -4611686018427387903 AND 4611686018427387903
      AND xla_ns(ts)::HUGEINT + xla_ns(dur) <= 4611686018427387903
)
SELECT
    CASE
        WHEN starts_with(name, '$') THEN 'python'
        WHEN args.correlation_id IS NOT NULL THEN 'runtime'
        WHEN args.step_num IS NOT NULL THEN 'annotation'
        WHEN args._src IS NULL AND next_pid = pid AND next_tid = tid AND next_ts < ts + dur
             AND starts_with(next_name, '$') THEN 'annotation'
        ELSE 'cpu_op'
    END AS kind,
    pid, tid, xla_ns(ts) AS start_ns, xla_ns(ts) + xla_ns(dur) AS end_ns,
    xla_ns(dur) AS duration_ns,
    CASE
        WHEN args.step_num IS NULL OR starts_with(name, '$') OR args.correlation_id IS NOT NULL
            THEN name
        WHEN contains(lower(name), 'step') THEN name || ' ' || args.step_num
        ELSE name || ' step ' || args.step_num
    END AS name,
    TRY_CAST(args.correlation_id AS BIGINT) AS correlation
FROM host;
