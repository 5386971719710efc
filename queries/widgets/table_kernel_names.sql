-- Params: none
-- Needs: schema
-- Every distinct kernel name (the kernel table shortens and categorises each in Python,
-- once per name, into the `kernel_names` table that table_kernels.sql joins).
-- Columns: name.
SELECT DISTINCT name FROM gpu_activities WHERE kind = 'kernel'
