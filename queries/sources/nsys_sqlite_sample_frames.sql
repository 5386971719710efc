-- Params: none
-- Needs: sqlite SAMPLING_CALLCHAINS
-- Run inside the Nsight Systems SQLite export: the frames of every CPU sample's call chain
-- (SAMPLING_CALLCHAINS, stackDepth 0 = innermost), in the table's own (id, depth) order.
-- symbol and module are ids into StringIds, named by the loader.
SELECT
    CAST(c.id AS INTEGER) AS ref,
    CAST(c.stackDepth AS INTEGER) AS depth,
    CAST(c.symbol AS INTEGER) AS symbol_id,
    CAST(c.module AS INTEGER) AS module_id
FROM SAMPLING_CALLCHAINS AS c
