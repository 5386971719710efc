-- Params: none
-- Needs: schema
-- Whether the loader found the program's CUDA calls but none of its kernels' records (an
-- nsys export without a kernel table: nsys' import dropped them, or they were not
-- traced): then the GPU's other work (a few copies and memsets) is not the program's.
-- Columns: unrecorded
SELECT EXISTS (SELECT 1 FROM trace_meta WHERE key = 'kernels_unrecorded') AS unrecorded;
