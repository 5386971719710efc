-- Params: none
-- Needs: schema
-- The memory lanes: one per GPU with memory events, with the scale its step lines are
-- drawn against (the larger of its peak allocated and reserved totals) and the time the
-- allocated total first reached its peak.
-- Columns: device, events, scale_bytes, peak_allocated_bytes, peak_ns, has_reserved
WITH peaks AS (
    SELECT device, count(*) AS events, max(total_allocated) AS peak,
           max(total_reserved) AS reserved
    FROM memory_events
    WHERE device_type = 'gpu'
    GROUP BY device
)
SELECT p.device, p.events, greatest(p.peak, coalesce(p.reserved, 0)) AS scale_bytes,
       p.peak AS peak_allocated_bytes,
       min(m.ts_ns) FILTER (WHERE m.total_allocated = p.peak) AS peak_ns,
       p.reserved IS NOT NULL AS has_reserved
FROM peaks AS p
JOIN memory_events AS m ON m.device_type = 'gpu' AND m.device = p.device
GROUP BY p.device, p.events, p.peak, p.reserved
ORDER BY p.device;
