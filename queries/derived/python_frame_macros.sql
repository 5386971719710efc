-- Params: {libraries}
-- Needs: none
-- How a Python frame is named and whose code it is, wherever frames come from (nsys'
-- Python backtraces, backtrace_frames_write.sql; its Python samples,
-- nsys_python_samples_write.sql): python_frame_name, as Kineto names a frame,
-- 'train.py(42): step' (a library's file by its path below site-packages, else the file's
-- name); python_user_code, a file that is no library's ({libraries}: the pattern of
-- tui/core/library_paths.py, as a string literal) nor one of Python's frozen modules or
-- code run from a string.
CREATE OR REPLACE TEMP MACRO python_frame_name(file, line, function) AS
    coalesce(nullif(regexp_extract(file, '/(site|dist)-packages/(.*)$', 2), ''),
             regexp_extract(file, '[^/]*$'))
    || '(' || line || '): ' || function;

CREATE OR REPLACE TEMP MACRO python_user_code(file) AS
    NOT regexp_matches(file, {libraries}) AND NOT starts_with(file, '<');
