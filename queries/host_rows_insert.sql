-- Write the host rows a loader staged numbered and with their depths (staged_host; tui/
-- sources/xla_depth.py) into host_activities: finalize_host_rows.sql and host_depth.sql
-- without the numbering and the depth computation, and without the copy that lets a
-- second connection compute depths. A plain scan, so the compressing write runs on every
-- core.
INSERT INTO host_activities
SELECT * REPLACE (coalesce(name, '(no name)') AS name)
FROM staged_host;
