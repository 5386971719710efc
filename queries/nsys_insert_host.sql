-- Move a batch of host rows fetched from the nsys export (registered as nsys_batch).
-- nsys suffixes API names with the version they appeared in (cudaMalloc_v3020): drop it
-- so names read the same as in Kineto traces.
INSERT INTO staged_host
SELECT kind, pid, tid, start_ns, end_ns, end_ns - start_ns,
       CASE WHEN kind = 'runtime' THEN regexp_replace(name, '_v\d+$', '') ELSE name END,
       correlation, 0
FROM nsys_batch
WHERE start_ns IS NOT NULL AND end_ns >= start_ns;
