-- Params: none
-- Needs: schema
-- Whether the trace records the framework's ops on the host (torch.profiler's CPU ops,
-- PyTorch's ops as nsys' NVTX ranges): where it does, a host's time in no op is time it
-- spent outside the framework (a sleep, I/O, Python), not merely unmarked.
-- Columns: recorded
SELECT EXISTS (SELECT 1 FROM host_activities WHERE kind = 'cpu_op') AS recorded;
