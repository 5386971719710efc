-- Params: none
-- Needs: schema
-- Per kernel name: count and duration statistics, total time descending, as
-- `nsys stats -r cuda_gpu_kern_sum` groups them (by the full demangled name).
-- percent: share of the summed time of all kernels.
-- Columns: name, count, total_ns, avg_ns, median_ns, min_ns, max_ns, stddev_ns, percent.
SELECT
    name,
    count(*) AS count,
    sum(duration_ns)::BIGINT AS total_ns,
    avg(duration_ns) AS avg_ns,
    median(duration_ns)::DOUBLE AS median_ns,
    min(duration_ns) AS min_ns,
    max(duration_ns) AS max_ns,
    coalesce(stddev_samp(duration_ns), 0) AS stddev_ns,
    100.0 * sum(duration_ns) / sum(sum(duration_ns)) OVER () AS percent
FROM gpu_activities
WHERE kind = 'kernel'
GROUP BY name
ORDER BY total_ns DESC, count, name;
