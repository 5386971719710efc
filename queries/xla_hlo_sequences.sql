-- The distinct sequences of xla_hlo_replays.sql, each once: what is to be placed.
-- Columns: sig, hlo_module, names, kinds
SELECT sig, any_value(hlo_module) AS hlo_module, any_value(names) AS names,
       any_value(kinds) AS kinds
FROM xla_hlo_replays
GROUP BY sig
ORDER BY sig;
