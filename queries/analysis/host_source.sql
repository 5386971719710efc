-- Params: none
-- Needs: schema
-- What the trace recorded of the host's own work: has_samples (CPU samples), has_traced
-- (Python functions or CPU ops, to weigh by time). Columns: has_samples, has_traced.
SELECT EXISTS (SELECT 1 FROM host_samples) AS has_samples,
       EXISTS (SELECT 1 FROM host_activities WHERE kind IN ('python', 'cpu_op')) AS has_traced;
