-- Params: $npc, $t_hi, $t_lo
-- Needs: schema
-- The memory lanes' window binned to screen columns (column c covers [c * $npc,
-- (c + 1) * $npc) ns): per GPU and column with events, the highest allocated and reserved
-- totals in it (so no peak falls between columns), the event that reached that highest
-- allocated total, and the totals after the column's last event (carried into the empty
-- columns after it); col NULL: the totals after the device's last event before the window.
-- Columns: device, col, max_allocated, max_reserved, top_id,
--         last_allocated, last_reserved
SELECT device, ts_ns // $npc AS col, max(total_allocated) AS max_allocated,
       max(total_reserved) AS max_reserved, arg_max(id, total_allocated) AS top_id,
       arg_max(total_allocated, id) AS last_allocated, arg_max(total_reserved, id) AS last_reserved
FROM memory_events
WHERE device_type = 'gpu' AND ts_ns >= $t_lo AND ts_ns < $t_hi
GROUP BY device, col
UNION ALL
SELECT device, NULL, NULL, NULL, NULL, arg_max(total_allocated, id), arg_max(total_reserved, id)
FROM memory_events
WHERE device_type = 'gpu' AND ts_ns < $t_lo
GROUP BY device;
