-- Params: none
-- Needs: schema
-- Peak memory per device, GPU devices first, then the host's allocator. peak_ns: when the
-- allocated total first reached its peak.
-- Columns: device_type, device, peak_allocated_bytes, peak_ns, peak_reserved_bytes, events
WITH peaks AS (
    SELECT device_type, device, max(total_allocated) AS peak,
           max(total_reserved) AS reserved, count(*) AS events
    FROM memory_events
    GROUP BY device_type, device
)
SELECT p.device_type, p.device, p.peak AS peak_allocated_bytes,
       min(m.ts_ns) FILTER (WHERE m.total_allocated = p.peak) AS peak_ns,
       p.reserved AS peak_reserved_bytes, p.events
FROM peaks AS p
JOIN memory_events AS m USING (device_type, device)
GROUP BY p.device_type, p.device, p.peak, p.reserved, p.events
ORDER BY list_position(['gpu', 'other', 'host'], p.device_type), p.device;
