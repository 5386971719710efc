-- Params: none
-- Needs: sqlite StringIds
-- Run inside the Nsight Systems SQLite export: the string table kernel and API names point
-- into (read once, joined in DuckDB).
SELECT id, value FROM StringIds
