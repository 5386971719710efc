-- Params: $fractions
-- Needs: table finalize.host_rows
-- Start times that cut the staged host rows into windows of about equal counts, at
-- $fractions of them (approximate quantiles: one pass, little memory).
SELECT approx_quantile(start_ns, $fractions::FLOAT[]) FROM finalize.host_rows;
