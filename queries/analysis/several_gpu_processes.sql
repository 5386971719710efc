-- Params: none
-- Needs: schema
-- Whether the GPU work of an nsys report came from more than one process (its correlation
-- ids' high bits, as shared_devices.sql reads them): a min and a max, before the sweep
-- that report asks for only then.
-- Columns: several (NULL without GPU work)
SELECT min(correlation >> 32) < max(correlation >> 32) AS several
FROM gpu_activities
WHERE device IS NOT NULL AND correlation IS NOT NULL;
