-- Params: $name
-- Needs: schema
-- The first launch of a kernel name (the Kernels tab's `d` on a name).
-- Columns: id (gpu_activities.id)
SELECT id
FROM gpu_activities
WHERE kind = 'kernel' AND name = $name
ORDER BY start_ns, id
LIMIT 1;
