-- Params: none
-- Needs: temp macro kineto_int_id, table scratch.kineto_events
-- Kineto's process_name / thread_name metadata events (staged in kineto_events) into
-- threads: one row per named thread, with its process's name. pid/tid are read as
-- kineto_host_activities.sql reads them (kineto_macros.sql).
INSERT INTO threads
WITH named AS (
    SELECT name AS what,
           kineto_int_id(pid) AS pid,
           kineto_int_id(tid) AS tid,
           trim(args.name) AS label
    FROM scratch.kineto_events
    WHERE ph = 'M' AND name IN ('process_name', 'thread_name') AND args.name IS NOT NULL
), processes AS (
    SELECT pid, min(label) AS process_name FROM named WHERE what = 'process_name' GROUP BY pid
)
SELECT t.pid, t.tid, any_value(p.process_name), min(t.label)
FROM named AS t LEFT JOIN processes AS p ON p.pid = t.pid
WHERE t.what = 'thread_name' AND t.pid IS NOT NULL AND t.tid IS NOT NULL
GROUP BY t.pid, t.tid
