-- After a loader staged its rows in staged_gpu / staged_host (temp tables, or views over
-- the events it parsed): write the GPU activities numbered, and number the host rows into
-- finalize_host_rows; host_depth.sql writes those out once the staging is dropped (the
-- depth's sort then has the memory the parsed events held). GPU activities are stored
-- sorted by time so the timeline's range scans skip most of the table (DuckDB keeps
-- min/max per row group); host activities are many times more numerous and sorting them
-- would cost more at load than it saves at query time.
-- An event without a name (a damaged or odd trace) gets '(no name)', never NULL.
INSERT INTO gpu_activities
SELECT row_number() OVER (ORDER BY device, start_ns, end_ns, stream, name) - 1 AS id,
       * REPLACE (coalesce(name, '(no name)') AS name)
FROM staged_gpu
ORDER BY device, start_ns, end_ns, stream, name;

CREATE OR REPLACE TEMP TABLE finalize_host_rows AS
SELECT row_number() OVER () - 1 AS id,
       * EXCLUDE (depth) REPLACE (coalesce(name, '(no name)') AS name)
FROM staged_host;
