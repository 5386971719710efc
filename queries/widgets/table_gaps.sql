-- Params: none
-- Needs: arrow explained
-- The gap table's rows, from the registered Arrow table `explained` (the Gap records of
-- tui.analysis.gaps.explained_gaps, so the table shows exactly what --summary reports)
-- plus each gap's end and rank by length (1 = longest).
-- Columns: rank, device, start_ns, end_ns, duration_ns, kind, cause, before, after,
--          before_short, after_short.
SELECT
    row_number() OVER (ORDER BY duration_ns DESC, start_ns) AS rank,
    device, start_ns, start_ns + duration_ns AS end_ns, duration_ns, kind, cause,
    before, after, before_short, after_short
FROM explained
