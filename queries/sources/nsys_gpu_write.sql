-- Params: none
-- Needs: temp table nsys_gpu, arrow nsys_strings
-- Write the staged nsys GPU rows (nsys_gpu) into gpu_activities, in the order and with
-- the ids finalize_activities.sql gives every loader's rows: sorted by (device, start_ns,
-- end_ns, stream, name), NULL names last, each numbered by its row id. Names are resolved
-- (StringIds in nsys_strings) once per distinct name and the sort moves only a name's
-- rank: sorting 3M+ rows that carry their name strings costs several times more. An
-- unnamed row gets '(no name)'.
CREATE OR REPLACE TEMP TABLE nsys_gpu_names AS
WITH staged AS (
    SELECT DISTINCT name_id, name AS staged_name FROM nsys_gpu
), resolved AS (
    SELECT g.name_id, g.staged_name,
           CASE WHEN g.name_id IS NULL THEN g.staged_name ELSE CAST(s.value AS VARCHAR) END
               AS name
    FROM staged AS g
    LEFT JOIN nsys_strings AS s ON s.id = g.name_id
)
SELECT *, row_number() OVER () AS name_no, dense_rank() OVER (ORDER BY name) AS name_rank
FROM resolved;

-- A name is looked up by its number in one list: a join here would cost more than the sort.
INSERT INTO gpu_activities BY NAME
SELECT * EXCLUDE (name_no),
       coalesce((SELECT list(name ORDER BY name_no) FROM nsys_gpu_names)[name_no], '(no name)')
           AS name
FROM (
    SELECT g.* EXCLUDE (name_id, name), n.name_no
    FROM nsys_gpu AS g
    JOIN nsys_gpu_names AS n
      ON g.name_id IS NOT DISTINCT FROM n.name_id AND g.name IS NOT DISTINCT FROM n.staged_name
    ORDER BY g.device, g.start_ns, g.end_ns, g.stream, n.name_rank
);

UPDATE gpu_activities SET id = rowid;

DROP TABLE nsys_gpu;
DROP TABLE nsys_gpu_names;
