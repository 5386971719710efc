-- Params: none
-- Needs: schema
-- The runtime calls that launch a CUDA graph (cudaGraphLaunch, cuGraphLaunch): the
-- kernels `launches` ties to them ran in a graph's replay, launched by no call of their
-- own. In the slot {graph_launches} of launch_means.sql and graph_replayed_kernels.sql.
-- Columns: id
SELECT id FROM host_activities WHERE kind = 'runtime' AND contains(name, 'GraphLaunch')
