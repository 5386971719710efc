-- Params: {staged_gpu}
-- Needs: temp table {staged_gpu}
-- After a loader staged its rows in staged_gpu / staged_host (temp tables, or views over
-- the events it parsed) and finalize_host_rows.sql copied the host rows out: write the GPU
-- activities, numbered. {staged_gpu}: staged_gpu, or the same rows where another
-- connection reads them (scratch.staged_gpu: kineto_gpu_activities.sql), to write them
-- beside the host rows' copy. They are stored sorted by time so the timeline's range
-- scans skip most of the table (DuckDB keeps min/max per row group); host activities are
-- many times more numerous and sorting them would cost more at load than it saves at
-- query time.
-- Ids are the rows' row ids, set once the sorted rows are in (the table was empty): a
-- streaming row_number() OVER () numbered them on one thread, and so wrote them (a 3.4M
-- row write took 6.1 s, in parallel 4.1 s); row_number() OVER (ORDER BY ...) is a second,
-- slower, sort.
-- An event without a name (a damaged or odd trace) gets '(no name)', never NULL; unnamed
-- rows sort after named ones at the same time.
-- The sort carries each name as an ENUM of the distinct names (in their order), a small
-- integer, instead of its text: kernel names run to hundreds of bytes, and moving them
-- through the sort took most of its time.
CREATE OR REPLACE TEMP TYPE finalize_gpu_name AS ENUM (
    SELECT DISTINCT name FROM {staged_gpu} WHERE name IS NOT NULL ORDER BY name
);

INSERT INTO gpu_activities
SELECT NULL AS id, * REPLACE (coalesce(CAST(name AS VARCHAR), '(no name)') AS name)
FROM (
    SELECT * FROM (SELECT * REPLACE (CAST(name AS finalize_gpu_name) AS name) FROM {staged_gpu})
    ORDER BY device, start_ns, end_ns, stream, name NULLS LAST
);

UPDATE gpu_activities SET id = rowid;

DROP TYPE finalize_gpu_name;
