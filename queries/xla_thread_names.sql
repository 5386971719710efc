-- The names an XLA profile gives its host threads ('thread_name' metadata events of the
-- '/host:' processes in xla_pids), e.g. 'python3', 'pjrt_async_work_runner/…', into
-- thread_names (lane labels). GPU streams keep their GPU lane labels.
INSERT INTO thread_names
SELECT pid, tid, any_value(args.name)
FROM xla_events
WHERE ph = 'M' AND name = 'thread_name' AND tid IS NOT NULL AND args.name IS NOT NULL
  AND pid IN (SELECT pid FROM xla_pids WHERE role = 'host')
GROUP BY pid, tid
ORDER BY pid, tid;
