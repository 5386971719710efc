-- Params: none
-- Needs: schema
-- Every device the GPU activities mention gets a row, named 'GPU n' when the
-- source described no such device.
INSERT OR IGNORE INTO devices
SELECT DISTINCT device, 'GPU ' || device, NULL, NULL, NULL
FROM gpu_activities
WHERE device NOT IN (SELECT device FROM devices);
