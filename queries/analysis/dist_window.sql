-- Params: none
-- Needs: schema
-- The window of dist_work.sql: with two or more `ProfilerStep` names among the host's
-- annotations (Kineto writes them so), Holistic Trace Analysis leaves the last profiler
-- step out; its start on the host is the cut. Without, no cut (NULL).
-- Columns: step_names, cutoff_ns (NULL: no cut), steps (those before the cut), format
--          (trace_meta's: which launch calls HTA would count), gpu_ids (how many ids the
--          GPU activities span, as gpu_id_span.sql: dist_work is filled a part at a time).
WITH steps AS (
    SELECT name, min(start_ns) AS start_ns
    FROM host_activities
    WHERE kind = 'annotation' AND starts_with(name, 'ProfilerStep')
    GROUP BY name
)
SELECT count(*) AS step_names,
       CASE WHEN count(*) >= 2 THEN max(start_ns) END AS cutoff_ns,
       CASE WHEN count(*) >= 2 THEN count(*) - 1 ELSE 0 END AS steps,
       (SELECT value FROM trace_meta WHERE key = 'format') AS format,
       (SELECT coalesce(max(id) + 1, 0) FROM gpu_activities) AS gpu_ids
FROM steps;
