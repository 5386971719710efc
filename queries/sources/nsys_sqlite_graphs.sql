-- Params: {process}
-- Needs: sqlite CUPTI_ACTIVITY_KIND_GRAPH_TRACE
-- Run inside the Nsight Systems SQLite export: the CUDA graphs nsys traced whole (its
-- default, `--cuda-graph-trace=graph`: a launch of a graph is one row, its kernels not
-- recorded), as kernels named `CUDA graph N` (N its graphId) in our column shape: the
-- GPU ran the graph's kernels from start to end, busy, though which ones is unknown. The
-- correlation id (the cudaGraphLaunch call's) is made the process's own as in
-- nsys_sqlite_kernels.sql.
SELECT
    CAST(deviceId AS INTEGER) AS device,
    CAST(streamId AS INTEGER) AS stream,
    CAST(start AS INTEGER) AS start_ns,
    CAST("end" AS INTEGER) AS end_ns,
    'CUDA graph ' || CAST(graphId AS INTEGER) AS name,
    CAST(correlationId AS INTEGER) + ({process} << 32) AS correlation
FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE
