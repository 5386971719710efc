-- Params: none
-- Needs: arrow flop_peaks
-- Achieved FLOP/s per kernel name: the FLOPs its instances were given (kernel_flops)
-- over those instances' time, with the time the same FLOPs would take at the GPU's peak
-- for their precision ($flop_peaks: device, precision, peak in FLOP/s; ideal_s NULL where
-- an instance's peak is not known).
-- Columns: name, precision (the most common of its instances'), count, flops, total_ns,
--          ideal_s.
SELECT g.name,
       mode(k.precision) AS precision,
       count(*) AS count,
       sum(k.flops) AS flops,
       sum(g.duration_ns)::BIGINT AS total_ns,
       CASE WHEN count(p.peak) = count(*) THEN sum(k.flops / p.peak) END AS ideal_s
FROM kernel_flops AS k
JOIN gpu_activities AS g ON g.id = k.gpu_id
LEFT JOIN flop_peaks AS p ON p.device = g.device AND p.precision = k.precision
GROUP BY g.name
ORDER BY flops DESC, g.name;
