-- Params: none
-- Needs: temp table xla_events, temp macro xla_ns
-- Complete events per process of an XLA profile, and how many have no usable ts/dur
-- (skipped), for the loader's warnings: one scan of the events.
-- Columns: pid, complete, unusable
SELECT
    pid,
    count(*) AS complete,
    count(*) FILTER (WHERE ts IS NULL OR dur IS NULL OR dur < 0 OR tid IS NULL
                     OR xla_ns(ts) IS NULL OR xla_ns(dur) IS NULL) AS unusable
FROM xla_events
WHERE ph = 'X'
GROUP BY pid
ORDER BY pid;
