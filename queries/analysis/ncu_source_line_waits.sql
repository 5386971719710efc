-- Params: $launch_id
-- Needs: table ncu_sass, table ncu_sass_lines, table ncu_sass_waits
-- One launch's scoreboard-stall samples per consumer line, by the line of the load they
-- wait for (the producer instruction named is the one with the most of them); biggest
-- first within a line. A consumer counts under every line its line table gives it; the
-- producer is named by its own line (ncu_sass).
-- Parameters: $launch_id.
-- Columns: file, line, reason, producer_file, producer_line, producer_address,
--          producer_instruction, samples, once (the samples shared out among the lines of
--          a consumer that has several: summed over lines, each consumer counts once).
WITH lines_of AS (
    SELECT address, count(*) AS n
    FROM ncu_sass_lines
    WHERE launch_id = $launch_id
    GROUP BY address
)
SELECT c.file, c.line, w.reason, p.file AS producer_file, p.line AS producer_line,
       arg_max(p.address, w.samples) AS producer_address,
       arg_max(p.instruction, w.samples) AS producer_instruction,
       sum(w.samples) AS samples,
       sum(w.samples / n.n) AS once
FROM ncu_sass_waits AS w
JOIN ncu_sass_lines AS c ON c.launch_id = w.launch_id AND c.address = w.address
JOIN lines_of AS n ON n.address = w.address
JOIN ncu_sass AS p ON p.launch_id = w.launch_id AND p.address = w.producer
WHERE w.launch_id = $launch_id
GROUP BY c.file, c.line, w.reason, p.file, p.line
ORDER BY c.file NULLS FIRST, c.line NULLS FIRST, samples DESC, producer_address;
