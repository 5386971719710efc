-- Params: none
-- Needs: schema
-- Where each Python stack of python_stacks was in the program: the innermost frame of the
-- user's own code, else the innermost frame, by its name ('train.py(42): step'). In the
-- slot {stack_lines} of host_python_lines.sql and gap_python_lines.sql.
-- Columns: stack, frame, file
SELECT stack, f.name AS frame, f.file
FROM (
    SELECT stack,
           coalesce(arg_min(s, s.depth) FILTER (WHERE s.user_code), arg_min(s, s.depth)) AS f
    FROM python_stacks AS s
    GROUP BY stack
)
