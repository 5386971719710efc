-- Params: none
-- Needs: schema
-- A trace (a store) without the host_samples table: has_traced (Python functions or CPU
-- ops, to weigh by time). Columns: has_traced.
SELECT EXISTS (SELECT 1 FROM host_activities WHERE kind IN ('python', 'cpu_op')) AS has_traced;
