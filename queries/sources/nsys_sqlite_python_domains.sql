-- Params: none
-- Needs: sqlite NVTX_PAYLOAD_SCHEMAS
-- Run inside the Nsight Systems SQLite export: the NVTX domains whose marks are Python's
-- stacks, by what they are ('Python Backtrace on CUDA': taken at CUDA calls,
-- --python-backtrace=cuda; 'Python Periodic Sampling': --python-sampling); none in most
-- reports, whose NVTX_EVENTS then need no scan for them.
SELECT DISTINCT CAST(domainId AS INTEGER) AS domain, CAST(name AS TEXT) AS kind
FROM NVTX_PAYLOAD_SCHEMAS
WHERE name IN ('Python Backtrace on CUDA', 'Python Periodic Sampling')
