-- Params: $rank, $waited_for
-- Needs: temp table collective_instances
-- The NCCL kernels that waited for another rank, and how long: the rows behind the
-- straggler and collective-wait findings. Reads the temporary table
-- `collective_instances` (rank_collectives.sql).
-- Parameters: $waited_for (the rank waited for; NULL: any), $rank (the waiting rank;
--             NULL: any).
-- Columns: rank, device, start_ns, duration_ns, wait_ns, waited_for, name; by start.
SELECT rank, device, start_ns, duration_ns, wait_ns, waited_for, name
FROM collective_instances
WHERE wait_ns > 0
  AND (CAST($waited_for AS INTEGER) IS NULL OR waited_for = CAST($waited_for AS INTEGER))
  AND (CAST($rank AS INTEGER) IS NULL OR rank = CAST($rank AS INTEGER))
ORDER BY start_ns, rank;
