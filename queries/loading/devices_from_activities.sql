-- Params: none
-- Needs: schema
-- Every device the GPU activities mention gets a row, named 'GPU n' when the
-- source described no such device. (A plain INSERT: the devices already there are left
-- out by the WHERE, and an upsert's first use in a database costs a few ms.)
INSERT INTO devices
SELECT DISTINCT device, 'GPU ' || device, NULL, NULL, NULL
FROM gpu_activities
WHERE device NOT IN (SELECT device FROM devices);
