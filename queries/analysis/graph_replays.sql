-- Params: none
-- Needs: schema
-- The GPU activities that CUDA graphs' replays ran, each with the launch of the graph that
-- ran it: those `launches` ties to a call that launches a graph (cudaGraphLaunch,
-- cuGraphLaunch), launched by no call of their own. Where nsys traced the graphs by node,
-- each kernel of a replay is an activity; where it traced them whole, each replay is one.
-- From the graphs' launches, which are few: a join from every activity's launch took a 3 GB
-- trace's 1.65M kernels 1.5 s, this 0.1 s. In the slot {graph_replays} of launch_means.sql,
-- graph_replays_by_device.sql and graph_replayed_kernels.sql.
-- Columns: gpu_id, runtime_id
SELECT l.gpu_id, l.runtime_id
FROM launches AS l
SEMI JOIN (SELECT id FROM host_activities
           WHERE kind = 'runtime' AND contains(name, 'GraphLaunch')) AS c
  ON c.id = l.runtime_id
