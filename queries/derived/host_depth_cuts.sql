-- Params: $fractions, {percent}
-- Needs: table finalize.host_rows
-- Start times that cut the staged host rows into windows of about equal counts, at
-- $fractions of them: quantiles of a uniform sample of {percent} per cent of the start
-- times (one pass, little memory; tui/derived/nesting.py sizes it).
SELECT quantile_disc(start_ns, $fractions::DOUBLE[])
FROM (
    SELECT start_ns FROM finalize.host_rows
    USING SAMPLE bernoulli({percent} PERCENT)
);
