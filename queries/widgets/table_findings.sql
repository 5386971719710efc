-- Params: none
-- Needs: arrow findings
-- The Findings tab's rows, from the registered Arrow table `findings` (the Finding records
-- of tui.analysis.findings, so the tab shows what --summary reports).
-- Columns: finding (its number), cost_ns, share (% of the trace's span), severity, rule,
--          rows (how many), text.
SELECT finding, cost_ns, share, severity, rule, rows, text
FROM findings
