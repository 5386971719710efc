-- Params: $chunks, $threshold
-- Needs: schema
-- Nsight Systems' gpu_time_util rule: each device's span, from its first activity's start
-- to its last one's end, cut into $chunks equal chunks (the size rounded up to a whole ns,
-- the last chunk clipped to the span); a chunk's use is the time its kernels, copies and
-- sets cover inside it over its length (concurrent work adds up, so it can pass 100%).
-- Runs of consecutive chunks under $threshold percent are merged into one region whose use
-- is the length-weighted average, rounded to 0.1. As the rule does, only activities that
-- start after 0 count, and sizes are reckoned in DOUBLE. Lowest use first.
-- Columns: start_ns, duration_ns, device, in_use_pct.
WITH ops AS (
    SELECT device, start_ns, end_ns FROM gpu_activities WHERE start_ns > 0
), spans AS (
    SELECT device, min(start_ns)::DOUBLE AS first_ns, max(end_ns)::DOUBLE AS last_ns,
           ceil((max(end_ns) - min(start_ns))::DOUBLE / $chunks) AS size
    FROM ops
    GROUP BY device
), chunks AS (
    SELECT device, n, cstart, least(cstart + size, last_ns) AS cend
    FROM (SELECT s.*, c.n, c.n * s.size + s.first_ns AS cstart
          FROM spans AS s, range($chunks) AS c(n))
    WHERE cstart < least(cstart + size, last_ns)
), used AS (
    SELECT c.device, c.n, c.cstart, c.cend, c.cend - c.cstart AS size,
           -- FILTER: DuckDB's least/greatest skip NULLs, so a chunk with no work would
           -- otherwise count as full
           coalesce(sum(least(o.end_ns, c.cend) - greatest(o.start_ns, c.cstart))
                        FILTER (WHERE o.start_ns IS NOT NULL), 0)
               / (c.cend - c.cstart) * 100 AS pct
    FROM chunks AS c
    LEFT JOIN ops AS o
      ON o.device = c.device AND o.start_ns < c.cend AND o.end_ns > c.cstart
    GROUP BY c.device, c.n, c.cstart, c.cend
    HAVING pct < $threshold
), runs AS (
    SELECT *, n - row_number() OVER (PARTITION BY device ORDER BY n) AS run
    FROM used
)
SELECT
    CAST(min(cstart) AS BIGINT) AS start_ns,
    CAST(max(cend) - min(cstart) AS BIGINT) AS duration_ns,
    device,
    round(sum(size * pct) / sum(size), 1) AS in_use_pct
FROM runs
GROUP BY device, run
ORDER BY in_use_pct, duration_ns, start_ns, device;
