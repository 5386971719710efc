-- Params: $max_stride, $min_repeats, $regular, $repeating, $tolerance, {repeats}, {sequence}
-- Needs: cte repeats, cte seq
-- The iteration that repeats in the kernel sequence where no kernel comes once an
-- iteration (work_iteration.sql found none): gradient accumulation runs its micro-batches'
-- kernels several times a step and its optimizer's once, in launches of a name repeated
-- within the step. Its anchor is a kernel name whose distance (in kernels) to its
-- occurrence `stride` occurrences on (2 to $max_stride) is within $tolerance of the most
-- common such distance (the period) at least $regular of the time, over $min_repeats or
-- more iterations covering half the sequence from the first of them on; each name at the
-- least stride at which it is so regular (a kernel of every layer is regular at a short
-- one, with a short period); of those, the longest period, at the least stride. The
-- sequence from the anchor's first regular repeat must repeat with that period at least
-- $repeating of the time, as in work_iteration.sql.
-- {sequence}: work_iteration_sequence.sql; {repeats}: work_iteration_repeats.sql.
-- Columns: start_ns (the first regular repeat's first kernel), name (the anchor's),
--          repeats (iterations from there on: the anchor's occurrences over its stride),
--          period (kernels an iteration), stride (the anchor's occurrences an iteration);
--          no row: no iteration found
WITH {sequence}, occurrences AS (
    -- each kernel's occurrence of its name (`key`, its hash: kernel names are long and
    -- joined a stride at a time), counted from 0; names too rare to repeat $min_repeats
    -- times at the least stride left out
    SELECT key, i, row_number() OVER (PARTITION BY key ORDER BY i) - 1 AS k
    FROM (SELECT hash(name) AS key, i FROM seq)
    QUALIFY count(*) OVER (PARTITION BY key) >= 2 * ($min_repeats + 1)
), pairs AS (
    SELECT a.key, s.stride, a.i, a.k + s.stride AS later
    FROM occurrences AS a
    CROSS JOIN range(2, $max_stride + 1) AS s(stride)
), spacing AS (
    -- each occurrence's distance (in kernels) to the occurrence `stride` on
    SELECT p.key, p.stride, p.i, b.i - p.i AS step
    FROM pairs AS p
    JOIN occurrences AS b ON b.key = p.key AND b.k = p.later
), modes AS (
    SELECT key, stride, period, steps,
           floor($tolerance::DOUBLE * period)::BIGINT AS slack
    FROM (SELECT key, stride, mode(step) AS period, count(*) AS steps
          FROM spacing
          GROUP BY key, stride
          HAVING count(*) >= $min_repeats * stride)
), regular AS (
    SELECT m.key, m.stride, m.period, count(*) AS regular,
           min(s.i) FILTER (WHERE s.step = m.period) AS first_i
    FROM modes AS m
    JOIN spacing AS s USING (key, stride)
    WHERE s.step BETWEEN m.period - m.slack AND m.period + m.slack
    GROUP BY m.key, m.stride, m.period, m.steps
    HAVING count(*) >= $regular * m.steps
       AND count(*) / m.stride * m.period
           >= 0.5 * ((SELECT count(*) FROM seq) - min(s.i) FILTER (WHERE s.step = m.period))
), anchor AS (
    -- each name at its least regular stride; the longest period of those
    SELECT r.*, s.name
    FROM regular AS r
    JOIN seq AS s ON s.i = r.first_i
    QUALIFY r.stride = min(r.stride) OVER (PARTITION BY r.key)
    ORDER BY r.period DESC, r.stride, r.regular DESC, s.name
    LIMIT 1
), {repeats}
SELECT (SELECT start_ns FROM seq WHERE i = x.first_i) AS start_ns, x.name,
       (SELECT count(*) FROM seq WHERE name = x.name AND i >= x.first_i) // x.stride
           AS repeats,
       x.period, x.stride
FROM anchor AS x
WHERE (SELECT same FROM repeats) >= $repeating;
