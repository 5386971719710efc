-- Params: {store}
-- Needs: table {store}.gpu_activities
-- The GPUs of one store (an XLA profile of one process driving several GPUs: a JAX mesh)
-- that ran GPU work, each a rank; the host process is every rank's (pid NULL: its rows
-- are not filtered, run_part_views.sql). Fewer than two: the store stays one trace.
-- Columns: pid, device; by device.
SELECT NULL::BIGINT AS pid, device
FROM {store}.gpu_activities
WHERE device IS NOT NULL
GROUP BY device
ORDER BY device;
