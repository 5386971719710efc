-- Params: $kind
-- Needs: arrow nsys_batch
-- Move host rows of one $kind fetched from the nsys export (registered as nsys_batch, rows
-- already checked, numbered in the export's order and named) into host_activities.
-- globalTid packs the process id in bits 24..47 and the thread id in bits 0..23. Names are
-- cast to text: an empty result set comes over typed int64, and a damaged StringIds may
-- hold BLOBs. Depths are filled in by nsys_host_depth.sql.
INSERT INTO host_activities BY NAME
SELECT id, $kind AS kind,
       (global_tid >> 24) & 16777215 AS pid,
       global_tid & 16777215 AS tid,
       start_ns, end_ns, end_ns - start_ns AS duration_ns,
       coalesce(CAST(name AS VARCHAR), '(no name)') AS name,
       correlation, 0 AS depth
FROM nsys_batch;
