-- Params: none
-- Needs: sqlite TARGET_INFO_CUDA_DEVICE
-- A piece of nsys_sqlite_gpu_processes.sql, in its slot {device}, where the export has
-- TARGET_INFO_CUDA_DEVICE: a (pid, deviceId) pair's GPU id, its process's CUDA device
-- number as that table maps it (nsys_sqlite_cuda_devices.sql), else the number itself.
-- Columns: an expression
coalesce((SELECT d.gpuId FROM TARGET_INFO_CUDA_DEVICE AS d
          WHERE d.pid = p.pid AND d.cudaId = p.deviceId), p.deviceId)
