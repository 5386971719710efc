-- Params: none
-- Needs: arrow nsys_strings
-- API names by StringIds id (nsys_strings). nsys suffixes API names with the version they
-- appeared in (cudaMalloc_v3020): drop it so names read the same as in Kineto traces.
-- Columns: id, name.
SELECT id, regexp_replace(CAST(value AS VARCHAR), '_v\d+$', '') AS name
FROM nsys_strings;
