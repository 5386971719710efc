-- What an XLA profile's staged events hold, for the loader's warnings.
-- xla_pids says which processes are GPUs.
-- Columns: complete (X events), unusable (no usable ts/dur: skipped), gpu_events,
--          gpu_kernels (GPU events that are neither copy nor set), kernels_without_details
--          (of those, how many carry no kernel_details: no launch configuration)
SELECT
    count(*) AS complete,
    count(*) FILTER (WHERE ts IS NULL OR dur IS NULL OR dur < 0 OR tid IS NULL
                     OR xla_ns(ts) IS NULL OR xla_ns(dur) IS NULL) AS unusable,
    count(*) FILTER (WHERE pid IN (SELECT pid FROM xla_pids WHERE role = 'gpu')) AS gpu_events,
    count(*) FILTER (WHERE pid IN (SELECT pid FROM xla_pids WHERE role = 'gpu') AND args.memcpy_details IS NULL
                       AND args."Memset_details" IS NULL AND NOT starts_with(coalesce(name, ''), 'Memcpy')
                       AND NOT starts_with(coalesce(name, ''), 'Memset')) AS gpu_kernels,
    count(*) FILTER (WHERE pid IN (SELECT pid FROM xla_pids WHERE role = 'gpu') AND args.memcpy_details IS NULL
                       AND args."Memset_details" IS NULL AND NOT starts_with(coalesce(name, ''), 'Memcpy')
                       AND NOT starts_with(coalesce(name, ''), 'Memset')
                       AND args.kernel_details IS NULL) AS kernels_without_details
FROM xla_events
WHERE ph = 'X';
