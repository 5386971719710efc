-- The processes of an XLA profile: those its 'process_name' metadata names, and any other
-- pid with complete events (name NULL). Columns: pid, name, events (complete events)
WITH names AS (
    SELECT pid, any_value(args.name) AS name
    FROM xla_events
    WHERE ph = 'M' AND name = 'process_name'
    GROUP BY pid
), counts AS (
    SELECT pid, count(*) AS events
    FROM xla_events
    WHERE ph = 'X'
    GROUP BY pid
)
SELECT pid, n.name, coalesce(c.events, 0) AS events
FROM names AS n
FULL JOIN counts AS c USING (pid)
ORDER BY pid;
