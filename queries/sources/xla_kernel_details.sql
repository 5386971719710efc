-- Params: none
-- Needs: temp table staged_gpu
-- The GPU kernels an XLA profile staged (staged_gpu), and how many of them carried no
-- kernel_details (no launch configuration: grid, block and registers all unknown).
-- Columns: kernels, without_details
SELECT
    count(*) AS kernels,
    count(*) FILTER (WHERE grid_x IS NULL AND block_x IS NULL
                     AND registers_per_thread IS NULL) AS without_details
FROM staged_gpu
WHERE kind = 'kernel';
