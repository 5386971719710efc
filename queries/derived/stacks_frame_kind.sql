-- Params: {host}
-- Needs: temp table {host}
-- A row when the host rows hold Python frames (tui/derived/stacks.py then nests them;
-- else the NVTX / user annotation ranges stand in). {host} as in stacks_nesting_count.sql.
SELECT 1 FROM {host} WHERE kind = 'python' LIMIT 1;
