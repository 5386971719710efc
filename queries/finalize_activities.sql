-- After a loader ran: number the rows and store them sorted by time, so range scans of
-- the timeline skip most of the table (DuckDB keeps min/max per row group).
CREATE OR REPLACE TABLE gpu_activities AS
SELECT * REPLACE (row_number() OVER (ORDER BY device, start_ns, end_ns, stream) - 1 AS id)
FROM gpu_activities
ORDER BY device, start_ns, end_ns, stream;

CREATE OR REPLACE TABLE host_activities AS
SELECT * REPLACE (row_number() OVER (ORDER BY start_ns, end_ns DESC, kind, tid) - 1 AS id)
FROM host_activities
ORDER BY start_ns, end_ns DESC, kind, tid;
