-- What an XLA profile's staged events hold, per process, for the loader's warnings (one
-- scan of the events); xla_pids says which processes are GPUs.
-- Columns: pid, complete (X events), unusable (no usable ts/dur: skipped), gpu_kernels
--          (GPU events that are neither copy nor set), kernels_without_details (of those,
--          how many carry no kernel_details: no launch configuration)
WITH gpu AS (
    SELECT pid FROM xla_pids WHERE role = 'gpu'
), counted AS (
    SELECT
        pid,
        count(*) AS complete,
        count(*) FILTER (WHERE ts IS NULL OR dur IS NULL OR dur < 0 OR tid IS NULL
                         OR xla_ns(ts) IS NULL OR xla_ns(dur) IS NULL) AS unusable,
        count(*) FILTER (WHERE args.memcpy_details IS NULL AND args."Memset_details" IS NULL
                           AND NOT starts_with(coalesce(name, ''), 'Memcpy')
                           AND NOT starts_with(coalesce(name, ''), 'Memset')) AS kernels,
        count(*) FILTER (WHERE args.memcpy_details IS NULL AND args."Memset_details" IS NULL
                           AND NOT starts_with(coalesce(name, ''), 'Memcpy')
                           AND NOT starts_with(coalesce(name, ''), 'Memset')
                           AND args.kernel_details IS NULL) AS without_details
    FROM xla_events
    WHERE ph = 'X'
    GROUP BY pid
)
SELECT pid, complete, unusable,
       CASE WHEN pid IN (SELECT pid FROM gpu) THEN kernels ELSE 0 END AS gpu_kernels,
       CASE WHEN pid IN (SELECT pid FROM gpu) THEN without_details ELSE 0 END
           AS kernels_without_details
FROM counted
ORDER BY pid;
