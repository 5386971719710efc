-- Params: $fractions, $kinds, {host}, {percent}
-- Needs: temp table stacks_points, temp table {host}
-- Times that cut the host ranges of the kinds in $kinds (by start) and the points of
-- stacks_points together into windows of about equal counts, at $fractions of them:
-- quantiles of a uniform sample of {percent} per cent of those times (one pass, little
-- memory; tui/derived/nesting.py sizes it). {host} as in stacks_nesting_count.sql.
SELECT quantile_disc(t, $fractions::DOUBLE[])
FROM (
    SELECT t FROM (
        SELECT start_ns AS t FROM {host} WHERE list_contains($kinds, kind)
        UNION ALL
        SELECT t FROM stacks_points
    ) USING SAMPLE bernoulli({percent} PERCENT)
);
