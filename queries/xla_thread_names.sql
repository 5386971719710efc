-- The names an XLA profile gives its threads ('thread_name' metadata events): a GPU
-- stream 'Stream #14(Compute,Memset)', a host thread 'python3' or 'pjrt_async_work_runner/…'.
-- Columns: pid, tid, name
SELECT pid, tid, any_value(args.name) AS name
FROM xla_events
WHERE ph = 'M' AND name = 'thread_name' AND tid IS NOT NULL AND args.name IS NOT NULL
GROUP BY pid, tid
ORDER BY pid, tid;
