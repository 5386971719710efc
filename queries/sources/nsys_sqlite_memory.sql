-- Params: {process}
-- Needs: sqlite CUDA_GPU_MEMORY_USAGE_EVENTS
-- Run inside the Nsight Systems SQLite export (recorded with --cuda-memory-usage=true):
-- CUDA memory allocations and frees. memoryOperationType: 0 allocation, 1 deallocation;
-- memKind: 0 pageable, 1 pinned (host memory), others device-side (ENUM_CUDA_MEM_KIND).
SELECT
    CAST(m.start AS INTEGER) AS ts_ns,
    CAST(m.deviceId AS INTEGER) AS device,
    CAST(m.address AS INTEGER) AS addr,
    CAST(m.bytes AS INTEGER) AS bytes,
    CAST(m.memKind AS INTEGER) AS mem_kind,
    CAST(m.memoryOperationType AS INTEGER) AS operation,
    CAST(m.correlationId AS INTEGER) + ({process} << 32) AS correlation,  -- as the API calls'
    CAST(m.globalPid AS INTEGER) AS global_pid
FROM CUDA_GPU_MEMORY_USAGE_EVENTS AS m
