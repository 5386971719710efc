-- Params: none
-- Needs: arrow finding_rows
-- Every row of every finding, from the registered Arrow table `finding_rows`: the finding
-- it belongs to, its rank in the rule's order (1 = first) and where it is.
-- Columns: finding, rank, start_ns, end_ns, duration_ns, device, stream, pid, tid, api,
--          detail.
SELECT finding, rank, start_ns, end_ns, duration_ns, device, stream, pid, tid, api, detail
FROM finding_rows
