-- The gaps gaps_selected.sql picked, in their order.
-- Columns: device, start_ns, end_ns, duration_ns, before_name, after_name,
--          after_correlation, after_kind.
SELECT device, start_ns, end_ns, duration_ns, before_name, after_name, after_correlation,
       after_kind
FROM selected_gaps
ORDER BY gap_no;
