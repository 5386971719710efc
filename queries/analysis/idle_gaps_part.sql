-- Params: {rows}
-- Needs: temp table idle_gaps
-- The intervals ended by the GPU activities of ids [$since, $until) into the temp table
-- idle_gaps (idle_gaps.sql made it; {rows}: idle_gaps_rows.sql, as there).
INSERT INTO idle_gaps
SELECT * FROM ({rows});
