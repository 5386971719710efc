-- Params: $kind
-- Needs: arrow nsys_batch, temp table nsys_gpu
-- Move GPU rows of one $kind fetched from the nsys export (registered as nsys_batch) into
-- the staging table nsys_gpu, by column name: each query reads only the columns its
-- table has, the others stay NULL. Inserting casts names to text: an empty result set
-- comes over typed int64, and a damaged StringIds may hold BLOBs.
INSERT INTO nsys_gpu BY NAME
SELECT *, $kind AS kind, end_ns - start_ns AS duration_ns
FROM nsys_batch
WHERE start_ns IS NOT NULL AND end_ns >= start_ns
  AND start_ns >= -4611686018427387903 AND end_ns <= 4611686018427387903;
