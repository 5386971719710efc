-- Params: none
-- Needs: sqlite TARGET_INFO_CUDA_DEVICE
-- Run inside the Nsight Systems SQLite export: the processes whose CUDA device numbers are
-- not the GPUs' ids. An activity's deviceId is the device's number in its own process
-- (its CUDA ordinal, cudaId), which is the GPU's id (TARGET_INFO_GPU.id, gpuId) only where
-- the process sees every GPU in order: a process started with CUDA_VISIBLE_DEVICES=1 (a
-- sweep's worker, a rank that a launcher such as SLURM gives one GPU) calls its GPU 1
-- device 0 (`unannotated/sweep.sqlite`). pid as in nsys_sqlite_threads.sql.
-- Columns: pid, cuda_id, gpu_id
SELECT CAST(pid AS INTEGER) AS pid, CAST(cudaId AS INTEGER) AS cuda_id,
       CAST(gpuId AS INTEGER) AS gpu_id
FROM TARGET_INFO_CUDA_DEVICE
WHERE cudaId <> gpuId AND pid IS NOT NULL;
