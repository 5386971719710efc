-- Params: none
-- Needs: arrow nsys_python_samples, arrow nsys_strings, temp macro nsys_unescape, temp macro python_frame_name, temp macro python_user_code
-- nsys' Python samples (nsys_sqlite_python_marks.sql, registered as nsys_python_samples)
-- into python_samples and python_stacks, each distinct stack once: its frames innermost
-- first, named through nsys_strings ('<' and '>' stored as HTML entities: nsys_unescape,
-- nsys_macros.sql), each frame's name and whether it is the user's code as
-- python_frame_macros.sql says. Samples whose JSON text the export left out are not
-- written.
CREATE OR REPLACE TEMP TABLE nsys_python_sample_rows AS
SELECT (global_tid >> 24) & 16777215 AS pid, global_tid & 16777215 AS tid, start_ns AS ts_ns,
       json_extract_string(json, '$."Python Periodic Sampling"."Thread state"') AS state,
       CAST(json_extract(json, '$."Python Periodic Sampling".Frames') AS VARCHAR)
           AS frames
FROM nsys_python_samples
WHERE json IS NOT NULL;

CREATE OR REPLACE TEMP TABLE nsys_python_stack_ids AS
SELECT row_number() OVER (ORDER BY frames) - 1 AS stack, frames
FROM (SELECT DISTINCT frames FROM nsys_python_sample_rows);

INSERT INTO python_samples
SELECT r.ts_ns, r.pid, r.tid, r.state, s.stack
FROM nsys_python_sample_rows AS r
JOIN nsys_python_stack_ids AS s USING (frames)
ORDER BY r.ts_ns;

INSERT INTO python_stacks
WITH frames AS (
    SELECT stack, generate_subscripts(f, 1) - 1 AS depth, unnest(f) AS frame
    FROM (SELECT stack, CAST(frames AS STRUCT("Function" BIGINT, "File" BIGINT,
                                              "Line" INTEGER)[]) AS f
          FROM nsys_python_stack_ids)
)
SELECT stack, depth, function, file, line, python_frame_name(file, line, function) AS name,
       python_user_code(file) AS user_code
FROM (
    SELECT f.stack, f.depth,
           nsys_unescape(coalesce(CAST(s.value AS VARCHAR), '(unknown)')) AS function,
           nsys_unescape(coalesce(CAST(m.value AS VARCHAR), '(unknown)')) AS file,
           f.frame."Line" AS line
    FROM frames AS f
    LEFT JOIN nsys_strings AS s ON s.id = f.frame."Function"
    LEFT JOIN nsys_strings AS m ON m.id = f.frame."File"
)
ORDER BY stack, depth;

DROP TABLE nsys_python_sample_rows;
DROP TABLE nsys_python_stack_ids;
