-- Params: none
-- Needs: temp table staged_gpu, arrow xla_counter_names, arrow xla_counter_samples
-- An XSpace's GPU counter samples (xla_counter_samples: device, metric (CUPTI's name),
-- ts_ns (the start of the sample's period), value; tui/sources/xla_counters.py) into
-- gpu_metric_names and gpu_metrics, the metrics kept (xla_counter_names: metric -> name)
-- under their names, numbered per device in name order.
-- A sample is stamped at the end of its period, as the schema wants: its start plus the
-- sampling period, the median distance between the metric's samples on the device.
-- Only samples whose period starts within the span of the profile's host and GPU
-- activities are kept, so that none stretches the span a lane or mean covers (the sample
-- CUPTI hands over first, from before the session, is left out when read: it starts
-- before its line, xla_counters.py).
CREATE OR REPLACE TEMP TABLE xla_counters_kept AS
WITH span AS (
    SELECT least((SELECT min(start_ns) FROM staged_gpu),
                 (SELECT min(start_ns) FROM host_activities)) AS first_ns,
           greatest((SELECT max(end_ns) FROM staged_gpu),
                    (SELECT max(end_ns) FROM host_activities)) AS last_ns
)
SELECT s.device, n.name, s.ts_ns, s.value
FROM xla_counter_samples AS s
JOIN xla_counter_names AS n USING (metric), span
WHERE s.ts_ns >= span.first_ns AND s.ts_ns < span.last_ns;

INSERT INTO gpu_metric_names
SELECT device, (row_number() OVER (PARTITION BY device ORDER BY name) - 1)::SMALLINT, name
FROM (SELECT DISTINCT device, name FROM xla_counters_kept)
ORDER BY device, name;

INSERT INTO gpu_metrics
WITH kept AS (
    SELECT k.device, m.metric_id, k.ts_ns, k.value
    FROM xla_counters_kept AS k
    JOIN gpu_metric_names AS m USING (device, name)
), period AS (
    SELECT device, metric_id, median(next_ns - ts_ns)::BIGINT AS period_ns
    FROM (SELECT device, metric_id, ts_ns,
                 lead(ts_ns) OVER (PARTITION BY device, metric_id ORDER BY ts_ns) AS next_ns
          FROM kept)
    WHERE next_ns > ts_ns
    GROUP BY ALL
)
SELECT k.device, k.metric_id, k.ts_ns + coalesce(p.period_ns, 0), k.value::REAL
FROM kept AS k
LEFT JOIN period AS p USING (device, metric_id)
ORDER BY k.ts_ns, k.device, k.metric_id;

DROP TABLE xla_counters_kept;
