-- Params: {block_x}, {block_y}, {block_z}, {grid_x}, {grid_y}, {grid_z}, {name}, {process}, {registers}, {shared_memory}
-- Needs: sqlite CUPTI_ACTIVITY_KIND_KERNEL
-- Run inside the Nsight Systems SQLite export: CUDA kernels in our column shape, with
-- plain columns only (no constant kind, no NULL text: over 3M+ rows each text column
-- SQLite hands over costs about a second). The brace-named fields are column expressions
-- chosen after probing the export's schema, because columns differ between nsys
-- versions; {name} is the name as its StringIds id (name_id, resolved in DuckDB once per
-- distinct name) or, when the export has no StringIds, as text (name). Each process
-- numbers its own correlation ids: {process} (its pid) makes them one process's alone.
SELECT
    CAST(k.deviceId AS INTEGER) AS device,
    CAST(k.streamId AS INTEGER) AS stream,
    CAST(k.start AS INTEGER) AS start_ns,
    CAST(k."end" AS INTEGER) AS end_ns,
    {name},
    CAST(k.correlationId AS INTEGER) + ({process} << 32) AS correlation,
    CAST({grid_x} AS INTEGER) AS grid_x, CAST({grid_y} AS INTEGER) AS grid_y,
    CAST({grid_z} AS INTEGER) AS grid_z,
    CAST({block_x} AS INTEGER) AS block_x, CAST({block_y} AS INTEGER) AS block_y,
    CAST({block_z} AS INTEGER) AS block_z,
    CAST({registers} AS INTEGER) AS registers_per_thread,
    CAST({shared_memory} AS INTEGER) AS shared_memory_bytes
FROM CUPTI_ACTIVITY_KIND_KERNEL AS k
