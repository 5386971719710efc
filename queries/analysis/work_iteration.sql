-- Params: $min_repeats, $regular, $repeating, $tolerance
-- Needs: schema
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
-- Columns: start_ns (the first regular repeat's first kernel), name (the anchor's),
--          repeats (the anchor's, from there on), period (kernels an iteration); no
--          row: no iteration found
WITH busiest AS (
    -- the stream with the most kernels: its order is the order the program issued them
    -- in, where kernels of several streams interleave as their timing falls (a DDP
    -- step's all-reduces among its backward's kernels)
    SELECT device, stream FROM gpu_activities
    WHERE kind = 'kernel' AND device IS NOT NULL
    GROUP BY device, stream ORDER BY count(*) DESC, device, stream
    LIMIT 1
), seq AS (
    -- its kernel sequence, numbered in start order
    SELECT row_number() OVER (ORDER BY g.start_ns, g.id) - 1 AS i, g.name, g.start_ns
    FROM gpu_activities AS g
    JOIN busiest AS b ON g.device = b.device AND g.stream IS NOT DISTINCT FROM b.stream
    WHERE g.kind = 'kernel'
), spacing AS (
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
), repeats AS (
    -- the sequence from the anchor's first regular repeat repeats with its period
    SELECT avg(CASE WHEN a.name = b.name THEN 1.0 ELSE 0.0 END) AS same
    FROM anchor AS x
    JOIN seq AS a ON a.i >= x.first_i
    JOIN seq AS b ON b.i = a.i + x.period
)
SELECT (SELECT start_ns FROM seq WHERE i = x.first_i) AS start_ns, x.name,
       (SELECT count(*) FROM seq WHERE name = x.name AND i >= x.first_i) AS repeats,
       x.period
FROM anchor AS x
WHERE (SELECT same FROM repeats) >= $repeating;
