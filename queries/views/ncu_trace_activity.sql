-- Params: $id
-- Needs: schema
-- One GPU activity of the trace as the Nsight Compute drill-down needs it: the name and
-- launch configuration it is matched on, and where it sits (to show it on the timeline).
-- Parameters: $id BIGINT (gpu_activities.id).
-- Columns: kind, name, grid_x, grid_y, grid_z, block_x, block_y, block_z, start_ns,
--          end_ns, device, stream.
SELECT kind, name, grid_x, grid_y, grid_z, block_x, block_y, block_z, start_ns, end_ns,
       device, stream
FROM gpu_activities
WHERE id = $id;
