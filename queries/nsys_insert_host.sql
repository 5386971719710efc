-- Move a batch of host rows fetched from the nsys export (registered as nsys_batch).
-- nsys suffixes API names with the version they appeared in (cudaMalloc_v3020): drop it
-- so names read the same as in Kineto traces. Names are cast to text: an empty result
-- set comes over typed int64, and a damaged StringIds may hold BLOBs.
INSERT INTO staged_host
SELECT kind, pid, tid, start_ns, end_ns, end_ns - start_ns,
       CASE WHEN kind = 'runtime' THEN regexp_replace(CAST(name AS VARCHAR), '_v\d+$', '')
            ELSE CAST(name AS VARCHAR) END,
       correlation, 0
FROM nsys_batch
WHERE start_ns IS NOT NULL AND end_ns >= start_ns
  AND start_ns >= -4611686018427387903 AND end_ns <= 4611686018427387903;
