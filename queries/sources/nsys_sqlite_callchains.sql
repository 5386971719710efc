-- Params: none
-- Needs: sqlite CUDA_CALLCHAINS
-- Run inside the Nsight Systems SQLite export (a report recorded with --cudabacktrace): the
-- frames of every CUDA API call's native backtrace, stackDepth 0 = innermost. Only
-- integer columns; symbol and module (ids into StringIds) are named by the loader.
SELECT
    CAST(c.id AS INTEGER) AS chain,
    CAST(c.stackDepth AS INTEGER) AS depth,
    CAST(c.symbol AS INTEGER) AS symbol_id,
    CAST(c.module AS INTEGER) AS module_id
FROM CUDA_CALLCHAINS AS c
