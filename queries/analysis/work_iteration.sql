-- Params: $min_repeats, $regular, $repeating, $tolerance, {repeats}, {sequence}
-- Needs: cte repeats, cte seq
-- The iteration that repeats in the kernel sequence, for a trace with no steps, ranges or
-- capture range to mark its work (work_window.sql). The sequence is the kernels of the
-- stream with the most, in start order (the order they were issued in: several streams'
-- kernels interleave as their timing falls). Its anchor is a kernel name whose distance (in
-- kernels) to its next repeat is within $tolerance of its most common distance (the
-- period: an iteration that logs, a few kernels more, is one still) at least $regular of
-- its $min_repeats or more repeats, those repeats covering half the sequence from the
-- first of them on or more (a loop runs to the program's end, however many kernels its
-- compile and autotuning ran before it); of several, the longest period (a kernel that
-- comes once an iteration). The sequence from the anchor's first repeat a period from the
-- next must repeat with that period at least $repeating of the time (less than $regular:
-- an evaluation every few steps, or a step that logs, puts the rest of its iteration a
-- few kernels off).
-- {sequence}: work_iteration_sequence.sql; {repeats}: work_iteration_repeats.sql.
-- Columns: start_ns (the first regular repeat's first kernel), name (the anchor's),
--          repeats (the anchor's, from there on), period (kernels an iteration); no
--          row: no iteration found
WITH {sequence}, spacing AS (
    -- each kernel's distance (in kernels) to the next of its name
    SELECT name, i, start_ns, lead(i) OVER (PARTITION BY name ORDER BY i) - i AS step
    FROM seq
), modes AS (
    SELECT name, mode(step) AS period, count(step) AS steps
    FROM spacing
    WHERE step IS NOT NULL
    GROUP BY name
    HAVING count(step) >= $min_repeats
), anchor AS (
    -- a kernel that comes once an iteration: its spacing regular (at least $regular of
    -- it within $tolerance of the period), its iterations covering at least half the
    -- sequence from its first regular repeat on; the longest such
    SELECT m.name, m.period, count(*) AS regular,
           min(s.i) FILTER (WHERE s.step = m.period) AS first_i
    FROM modes AS m
    JOIN spacing AS s USING (name)
    WHERE abs(s.step - m.period) <= floor($tolerance * m.period)
    GROUP BY m.name, m.period, m.steps
    HAVING count(*) >= $regular * m.steps
       AND count(*) * m.period
           >= 0.5 * ((SELECT count(*) FROM seq) - min(s.i) FILTER (WHERE s.step = m.period))
    ORDER BY m.period DESC, regular DESC, m.name
    LIMIT 1
), {repeats}
SELECT (SELECT start_ns FROM seq WHERE i = x.first_i) AS start_ns, x.name,
       (SELECT count(*) FROM seq WHERE name = x.name AND i >= x.first_i) AS repeats,
       x.period
FROM anchor AS x
WHERE (SELECT same FROM repeats) >= $repeating;
