-- Params: none
-- Needs: table host_ranges_raw
-- The time ranges of the temp table host_ranges_raw (start_ns, end_ns: gaps, a step, a
-- selection), merged where they overlap (the gaps of two devices may), into the temp
-- table host_ranges: disjoint, half-open [start_ns, end_ns), in time order, so that a
-- sample or an instant is counted once however many ranges hold it.
CREATE OR REPLACE TEMP TABLE host_ranges AS
WITH ordered AS (
    SELECT start_ns, end_ns,
           max(end_ns) OVER (ORDER BY start_ns, end_ns
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
    FROM host_ranges_raw
    WHERE end_ns > start_ns
), islands AS (
    SELECT start_ns, end_ns,
           sum(CASE WHEN reach IS NULL OR start_ns > reach THEN 1 ELSE 0 END)
               OVER (ORDER BY start_ns, end_ns ROWS UNBOUNDED PRECEDING) AS island
    FROM ordered
)
SELECT min(start_ns) AS start_ns, max(end_ns) AS end_ns
FROM islands
GROUP BY island
ORDER BY start_ns;
