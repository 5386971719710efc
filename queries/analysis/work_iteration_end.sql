-- Params: $name, $period, {sequence}
-- Needs: cte seq
-- Where the kernel sequence's iteration (work_iteration.sql: its anchor $name, $period
-- kernels an iteration) ends: its last repeat, from the anchor's last occurrence, closes
-- with the kernel a period on (the sequence's last where fewer follow), and with the GPU
-- activity of any stream or device that had started by then (a collective, a copy). What
-- the program ran after its loop is not the iteration's: a checkpoint written, a result
-- read back after a process group was torn down (`unannotated/cp_json.sqlite`: a loss
-- read 488 ms after the last step, past ncclCommDestroy).
-- {sequence}: work_iteration_sequence.sql.
-- Columns: end_ns (NULL where the anchor is not in the sequence)
WITH {sequence}, closing AS (
    SELECT s.end_ns FROM seq AS s
    WHERE s.i = least((SELECT max(i) FROM seq WHERE name = $name) + $period - 1,
                      (SELECT max(i) FROM seq))
)
SELECT max(g.end_ns) AS end_ns
FROM gpu_activities AS g, closing AS c
WHERE g.device IS NOT NULL AND g.end_ns > g.start_ns AND g.start_ns <= c.end_ns;
