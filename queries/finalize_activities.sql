-- After a loader filled staged_gpu / staged_host: write the activities numbered, in one
-- pass. GPU activities are stored sorted by time so the timeline's range scans skip most
-- of the table (DuckDB keeps min/max per row group); host activities are many times more
-- numerous and sorting them would cost more at load than it saves at query time.
-- An event without a name (a damaged or odd trace) gets '(no name)', never NULL.
INSERT INTO gpu_activities
SELECT row_number() OVER (ORDER BY device, start_ns, end_ns, stream, name) - 1 AS id,
       * REPLACE (coalesce(name, '(no name)') AS name)
FROM staged_gpu
ORDER BY device, start_ns, end_ns, stream, name;

INSERT INTO host_activities
SELECT row_number() OVER () - 1 AS id, * REPLACE (coalesce(name, '(no name)') AS name)
FROM staged_host;

DROP TABLE staged_gpu;
DROP TABLE staged_host;
