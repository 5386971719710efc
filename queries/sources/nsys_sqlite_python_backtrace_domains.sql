-- Params: none
-- Needs: sqlite NVTX_PAYLOAD_SCHEMAS
-- Run inside the Nsight Systems SQLite export: the NVTX domains whose marks are Python
-- backtraces taken at CUDA calls (--python-backtrace=cuda); none in most reports, whose
-- NVTX_EVENTS then need no scan for them.
SELECT DISTINCT CAST(domainId AS INTEGER) AS domain
FROM NVTX_PAYLOAD_SCHEMAS
WHERE name = 'Python Backtrace on CUDA'
