-- Params: none
-- Needs: sqlite OSRT_CALLCHAINS
-- Run inside the Nsight Systems SQLite export: the frames of the OS runtime calls'
-- backtraces (OSRT_CALLCHAINS, stackDepth 0 = the call itself).
SELECT
    CAST(c.id AS INTEGER) AS ref,
    CAST(c.stackDepth AS INTEGER) AS depth,
    CAST(c.symbol AS INTEGER) AS symbol_id,
    CAST(c.module AS INTEGER) AS module_id
FROM OSRT_CALLCHAINS AS c
