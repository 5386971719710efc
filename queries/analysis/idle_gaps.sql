-- Params: {rows}
-- Needs: none
-- The temp table idle_gaps ({rows}: idle_gaps_rows.sql, which says what it holds): every
-- interval asked for where they fit in one part ($since, $until NULL), else the first
-- part, idle_gaps_part.sql adding the others.
CREATE OR REPLACE TEMP TABLE idle_gaps AS
SELECT * FROM ({rows});
