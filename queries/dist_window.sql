-- The window of dist_work.sql: with two or more `ProfilerStep` names among the host's
-- annotations and ops, Holistic Trace Analysis leaves the last profiler step out; its
-- start on the host is the cut. Without, no cut (NULL).
-- Columns: step_names, cutoff_ns (NULL: no cut), steps (those before the cut).
WITH steps AS (
    SELECT name, min(start_ns) AS start_ns
    FROM host_activities
    WHERE kind IN ('annotation', 'cpu_op') AND contains(name, 'ProfilerStep')
    GROUP BY name
), cut AS (
    SELECT count(*) AS step_names,
           CASE WHEN count(*) >= 2 THEN max(start_ns) END AS cutoff_ns
    FROM steps
)
SELECT c.step_names, c.cutoff_ns,
       (SELECT count(*) FROM steps AS s WHERE s.start_ns < c.cutoff_ns) AS steps
FROM cut AS c;
