-- Params: none
-- Needs: table ncu_kernels
-- Every profiled kernel launch, in the report's order.
-- Parameters: none.
-- Columns: launch_id, name, short_name, mangled_name, grid_x, grid_y, grid_z, block_x,
--          block_y, block_z, registers_per_thread, shared_memory_bytes, duration_ns,
--          device, device_name, compute_capability, context, stream.
SELECT launch_id, name, short_name, mangled_name,
       grid_x, grid_y, grid_z, block_x, block_y, block_z,
       registers_per_thread, shared_memory_bytes, duration_ns,
       device, device_name, compute_capability, context, stream
FROM ncu_kernels
ORDER BY launch_id;
