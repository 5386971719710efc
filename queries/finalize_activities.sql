-- After a loader filled staged_gpu / staged_host: write the activities sorted by time and
-- numbered, in one pass. Sorted storage lets timeline range scans skip most of the table
-- (DuckDB keeps min/max per row group).
INSERT INTO gpu_activities
SELECT row_number() OVER (ORDER BY device, start_ns, end_ns, stream, name) - 1 AS id, *
FROM staged_gpu
ORDER BY device, start_ns, end_ns, stream, name;

INSERT INTO host_activities
SELECT row_number() OVER (ORDER BY start_ns, end_ns DESC, kind, pid, tid, name) - 1 AS id, *
FROM staged_host
ORDER BY start_ns, end_ns DESC, kind, pid, tid, name;

DROP TABLE staged_gpu;
DROP TABLE staged_host;
