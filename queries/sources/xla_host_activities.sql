-- Params: $host_pids
-- Needs: temp table xla_events, temp macro xla_ns
-- Host work in an XLA profile's staged events (xla_events), written straight into
-- host_activities in the events' order (a parallel scan; no staging copy): the complete
-- events of the '/host:...' processes ($host_pids: their pids; a list lookup, not a join,
-- which could reorder the rows). Until tui/derived/xla_depth.py numbers the rows and sets
-- their depths from that order, `id` holds the event's row in xla_events and `depth` is
-- NULL. The events carry no category, so the kind is read from what the profiler
-- attaches to each (checked against real JAX 0.11 profiles):
--   python      '$file.py:line function': JAX's Python tracer, which marks its events
--               with the '$'; the name is kept without it ('file.py:line function')
--   runtime     a correlation_id: a CUDA driver call seen by CUPTI, named after what it
--               launched (cuGraphLaunch, a kernel's name, MemcpyH2D, Memset); the GPU
--               side of the same call is on the device's stream thread. A host
--               'MemcpyH2D' is this call, not the copy: it is never GPU work here.
--   annotation  a step_num: jax.profiler.StepTraceAnnotation; or a TraceMe opened from
--               Python (jax.profiler.TraceAnnotation; JAX's own, such as shard_args,
--               too): one with no source location (_src) whose first nested event on
--               its thread (the next one in the file) is a Python function or a jitted
--               call; those are found by xla_host_annotations.sql, and are 'cpu_op'
--               until then
--   cpu_op      the rest: XLA's and PJRT's TraceMes (executable runs, thunks, HLO ops
--               such as 'command_buffer_1', compile passes such as 'algsimp')
-- A StepTraceAnnotation's name gets its step number, as Kineto's 'ProfilerStep#3' has it:
-- 'train' becomes 'train step 3' ('train_step' 'train_step 3'), for `@ step 3` and steps
-- per rank.
INSERT INTO host_activities
SELECT
    rowid AS id,  -- the event's row, for xla_host_annotations.sql; numbered later
    CASE
        WHEN starts_with(name, '$') THEN 'python'
        WHEN args.correlation_id IS NOT NULL THEN 'runtime'
        WHEN args.step_num IS NOT NULL THEN 'annotation'
        ELSE 'cpu_op'
    END AS kind,
    pid, tid, xla_ns(ts) AS start_ns, xla_ns(ts) + xla_ns(dur) AS end_ns,
    xla_ns(dur) AS duration_ns,
    coalesce(CASE
        WHEN starts_with(name, '$') THEN substr(name, 2)
        WHEN args.step_num IS NULL OR args.correlation_id IS NOT NULL THEN name
        WHEN contains(lower(name), 'step') THEN name || ' ' || args.step_num
        ELSE name || ' step ' || args.step_num
    END, '(no name)') AS name,
    TRY_CAST(args.correlation_id AS BIGINT) AS correlation,
    NULL::INTEGER AS depth  -- set by tui/derived/xla_depth.py
-- (no window over the events for the next one: a window runs on one thread, and this
-- scan is most of the load's host work)
FROM xla_events
WHERE ph = 'X' AND list_contains($host_pids, pid)
  AND dur >= 0 AND tid IS NOT NULL
  AND xla_ns(ts) BETWEEN -4611686018427387903 AND 4611686018427387903
  AND xla_ns(ts)::HUGEINT + xla_ns(dur) <= 4611686018427387903;
