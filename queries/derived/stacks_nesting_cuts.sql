-- Params: $fractions, $kinds, {host}
-- Needs: temp table stacks_points, temp table {host}
-- Times that cut the host ranges of the kinds in $kinds (by start) and the points of
-- stacks_points together into windows of about equal counts, at $fractions of them
-- (approximate quantiles: one pass, little memory). {host} as in stacks_nesting_count.sql.
SELECT approx_quantile(t, $fractions::FLOAT[])
FROM (
    SELECT start_ns AS t FROM {host} WHERE list_contains($kinds, kind)
    UNION ALL
    SELECT t FROM stacks_points
);
