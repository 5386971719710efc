-- Params: $since, $until
-- Needs: temp table dist_owner_counts, temp macro dist_owner_counts_rows
-- The counts of the GPU activities of ids [$since, $until) into the temp table
-- dist_owner_counts (dist_owner_counts.sql made it).
INSERT INTO dist_owner_counts FROM dist_owner_counts_rows($since, $until);
