-- Params: $libraries
-- Needs: schema
-- Where each Python stack of python_stacks was in the program: the innermost frame of the
-- user's own code (a file that is no library's, $libraries, nor one of Python's frozen
-- modules or code run from a string), else the innermost frame; named as Kineto names a
-- frame, 'train.py(42): step' (a library's file by its path below site-packages). In the
-- slot {stack_lines} of host_python_lines.sql and gap_python_lines.sql.
-- Columns: stack, frame, file
SELECT stack,
       coalesce(nullif(regexp_extract(f.file, '/(site|dist)-packages/(.*)$', 2), ''),
                regexp_extract(f.file, '[^/]*$'))
           || '(' || f.line || '): ' || f.function AS frame,
       f.file
FROM (
    SELECT stack,
           coalesce(arg_min(s, s.depth) FILTER (WHERE NOT regexp_matches(s.file, $libraries)
                                                AND NOT starts_with(s.file, '<')),
                    arg_min(s, s.depth)) AS f
    FROM python_stacks AS s
    GROUP BY stack
)
