-- Params: none
-- Needs: cte anchor, cte seq
-- A CTE of work_iteration.sql and work_iteration_strided.sql, in their slot {repeats}:
-- how often the sequence from the anchor's first regular repeat (first_i) repeats with
-- its period, the share of its kernels named as the kernel a period on.
-- Columns: same.
repeats AS (
    SELECT avg(CASE WHEN a.name = b.name THEN 1.0 ELSE 0.0 END) AS same
    FROM anchor AS x
    JOIN seq AS a ON a.i >= x.first_i
    JOIN seq AS b ON b.i = a.i + x.period
)
