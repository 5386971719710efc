-- Params: none
-- Needs: none
-- The frames of an nsys export's CPU samples' and OS runtime calls' call chains, staged
-- (by nsys_host_chain_keys.sql) to be numbered as distinct chains (nsys_host_chains.sql).
CREATE OR REPLACE TEMP TABLE nsys_chain_frames (
    source VARCHAR, ref BIGINT, depth INTEGER, symbol_id BIGINT, module_id BIGINT);
