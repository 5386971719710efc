-- Params: $min_repeats, $prefix, $regular, $repeating, $spread, {sequence}
-- Needs: cte seq
-- The iteration that repeats in the kernel sequence where its length in kernels changes
-- from one to the next (work_iteration.sql and work_iteration_strided.sql found none): a
-- mixture of experts launches each expert's kernels for the tokens routed to it, which
-- change every step, and cuBLAS picks a GEMM's kernels by its shape. Its anchor is a
-- kernel name whose distance (in kernels) to its next repeat is within a factor $spread of
-- its median distance (the period) at least $regular of its $min_repeats or more repeats,
-- those repeats covering half the sequence from the first of them on or more, and whose
-- next $prefix kernels are named as those after its next repeat at least $repeating of
-- the time (each iteration starts as the one before it did); of several, the longest
-- period. Its first repeat is the first a regular distance from the next.
-- {sequence}: work_iteration_sequence.sql.
-- Columns: start_ns (the first regular repeat's first kernel), name (the anchor's),
--          repeats (the anchor's, from there on), period (the median kernels an
--          iteration); no row: no iteration found
WITH {sequence}, spacing AS (
    -- each kernel's distance (in kernels) to the next of its name; names too rare to
    -- repeat $min_repeats times left out
    SELECT key, i, lead(i) OVER (PARTITION BY key ORDER BY i) - i AS step
    FROM (SELECT hash(name) AS key, i FROM seq)
    QUALIFY count(*) OVER (PARTITION BY key) > $min_repeats
), medians AS (
    SELECT key, median(step) AS period, count(step) AS steps
    FROM spacing
    WHERE step IS NOT NULL
    GROUP BY key
), regular AS (
    SELECT m.key, m.period, count(*) AS regular, min(s.i) AS first_i
    FROM medians AS m
    JOIN spacing AS s USING (key)
    WHERE s.step BETWEEN m.period / $spread AND m.period * $spread
    GROUP BY m.key, m.period, m.steps
    HAVING count(*) >= $regular * m.steps
       AND count(*) * m.period >= 0.5 * ((SELECT count(*) FROM seq) - min(s.i))
), starts AS (
    -- each regular repeat from the first on, with the next one's start
    SELECT r.key, r.period, s.i, s.i + s.step AS next_i
    FROM regular AS r
    JOIN spacing AS s USING (key)
    WHERE s.i >= r.first_i AND s.step IS NOT NULL
), alike AS (
    -- the share of the kernels after each repeat named as those after the next
    SELECT t.key, t.period,
           avg(CASE WHEN a.name = b.name THEN 1.0 ELSE 0.0 END) AS same
    FROM starts AS t
    CROSS JOIN range(1, $prefix + 1) AS o(ahead)
    JOIN seq AS a ON a.i = t.i + o.ahead
    JOIN seq AS b ON b.i = t.next_i + o.ahead
    GROUP BY t.key, t.period
    HAVING avg(CASE WHEN a.name = b.name THEN 1.0 ELSE 0.0 END) >= $repeating
), anchor AS (
    SELECT r.first_i, r.period, s.name
    FROM alike AS x
    JOIN regular AS r USING (key)
    JOIN seq AS s ON s.i = r.first_i
    ORDER BY r.period DESC, r.regular DESC, s.name
    LIMIT 1
)
SELECT (SELECT start_ns FROM seq WHERE i = x.first_i) AS start_ns, x.name,
       (SELECT count(*) FROM seq WHERE name = x.name AND i >= x.first_i) AS repeats,
       round(x.period)::BIGINT AS period
FROM anchor AS x;
