-- Params: none
-- Needs: temp table xla_events
-- The TraceMes opened from Python among the 'cpu_op' host rows (see
-- xla_host_activities.sql): no source location (_src), and the next event in the file, on
-- the same thread and starting inside it, is a Python function or a call of a jitted
-- function ('PjitFunction(gemm)', 'PmapFunction(f)'): only Python calls those, so a
-- TraceMe holding one with no Python frame between was opened in the calling frame (a
-- `with TraceAnnotation(...)` around a loop of jitted calls). The next event is found by
-- its row number in xla_events (a join on rowid + 1), and the kind set in place, which
-- keeps the rows in the events' order.
UPDATE host_activities SET kind = 'annotation'
WHERE kind = 'cpu_op' AND id IN (  -- id: the event's row until the rows are numbered
    SELECT candidate.rowid
    FROM xla_events AS candidate
    JOIN xla_events AS next ON next.rowid = candidate.rowid + 1
    WHERE candidate.ph = 'X' AND candidate.args._src IS NULL
      AND NOT starts_with(candidate.name, '$')
      AND NOT starts_with(candidate.name, 'PjitFunction(')  -- the calls themselves
      AND NOT starts_with(candidate.name, 'PmapFunction(')
      AND candidate.args.correlation_id IS NULL AND candidate.args.step_num IS NULL
      AND (starts_with(next.name, '$') OR starts_with(next.name, 'PjitFunction(')
           OR starts_with(next.name, 'PmapFunction('))
      AND next.pid = candidate.pid AND next.tid = candidate.tid
      AND next.ts < candidate.ts + candidate.dur
);
