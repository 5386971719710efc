-- Params: none
-- Needs: temp table xla_events, temp table xla_pids
-- The names an XLA profile gives its host threads and processes ('thread_name' /
-- 'process_name' metadata events of the '/host:' processes in xla_pids), e.g. 'python3',
-- 'pjrt_async_work_runner/…' of '/host:CPU', into threads (lane labels). GPU streams keep
-- their GPU lane labels.
INSERT INTO threads
SELECT t.pid, t.tid, any_value(p.args.name), any_value(t.args.name)
FROM xla_events AS t
LEFT JOIN xla_events AS p ON p.ph = 'M' AND p.name = 'process_name' AND p.pid = t.pid
WHERE t.ph = 'M' AND t.name = 'thread_name' AND t.tid IS NOT NULL AND t.args.name IS NOT NULL
  AND t.pid IN (SELECT pid FROM xla_pids WHERE role = 'host')
GROUP BY t.pid, t.tid
ORDER BY t.pid, t.tid;
