-- Params: none
-- Needs: arrow nsys_cuda_devices, temp table nsys_gpu
-- The staged GPU rows (nsys_gpu) on the GPUs' own ids rather than their processes' CUDA
-- device numbers (nsys_sqlite_cuda_devices.sql: only the processes where the two differ,
-- so a report where every process sees every GPU changes nothing). A row's process is
-- its correlation's high half (nsys_sqlite_kernels.sql); a peer copy's source and
-- destination are its process's numbers too.
UPDATE nsys_gpu AS g
SET device = coalesce((SELECT d.gpu_id FROM nsys_cuda_devices AS d
                       WHERE d.pid = g.correlation >> 32 AND d.cuda_id = g.device), g.device),
    src_device = coalesce((SELECT d.gpu_id FROM nsys_cuda_devices AS d
                           WHERE d.pid = g.correlation >> 32 AND d.cuda_id = g.src_device),
                          g.src_device),
    dst_device = coalesce((SELECT d.gpu_id FROM nsys_cuda_devices AS d
                           WHERE d.pid = g.correlation >> 32 AND d.cuda_id = g.dst_device),
                          g.dst_device)
WHERE g.correlation >> 32 IN (SELECT pid FROM nsys_cuda_devices);
