-- Params: $end_ns, $start_ns
-- Needs: arrow flop_peaks
-- The FLOPs of the kernels that started in [$start_ns, $end_ns) (the window of work), per
-- device and precision, with the GPU's peak for it ($flop_peaks; NULL where unknown).
-- Columns: device, precision, flops, kernels, peak.
SELECT g.device, k.precision, sum(k.flops) AS flops, count(*) AS kernels,
       any_value(p.peak) AS peak
FROM kernel_flops AS k
JOIN gpu_activities AS g ON g.id = k.gpu_id
LEFT JOIN flop_peaks AS p ON p.device = g.device AND p.precision = k.precision
WHERE g.start_ns >= $start_ns AND g.start_ns < $end_ns
GROUP BY g.device, k.precision
ORDER BY flops DESC;
