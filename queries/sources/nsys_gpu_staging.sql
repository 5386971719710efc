-- Params: none
-- Needs: schema
-- Kernels, copies and sets read from the nsys export, before sorting: names stay StringIds
-- ids (name_id) so the rows carry no strings until they are written in order.
CREATE OR REPLACE TEMP TABLE nsys_gpu AS
SELECT * EXCLUDE (id, name), CAST(NULL AS BIGINT) AS name_id, CAST(NULL AS VARCHAR) AS name
FROM gpu_activities
LIMIT 0;
