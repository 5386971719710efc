-- Params: $libraries, $pid, $tid
-- Needs: table host_ranges
-- The Python samples of thread ($pid, $tid) inside host_ranges (host_ranges_merge.sql:
-- disjoint, so an as-of join finds the one range that may hold each sample), by where the
-- program was: the innermost frame of the user's own code on the stack (a file that is no
-- library's, $libraries, nor Python's frozen modules' or code run from a string), else
-- the innermost frame. A frame is named as Kineto names one, 'train.py(42): step' (a
-- library's file by its path below site-packages). Columns: frame, file, samples; most
-- first.
WITH inside AS (
    SELECT s.stack, count(*) AS samples
    FROM python_samples AS s
    ASOF JOIN host_ranges AS r ON s.ts_ns >= r.start_ns
    WHERE s.ts_ns < r.end_ns AND s.pid = $pid AND s.tid = $tid
    GROUP BY s.stack
), located AS (
    SELECT f.stack,
           coalesce(arg_min(f, f.depth) FILTER (WHERE NOT regexp_matches(f.file, $libraries)
                                                AND NOT starts_with(f.file, '<')),
                    arg_min(f, f.depth)) AS f
    FROM python_stacks AS f
    WHERE f.stack IN (SELECT stack FROM inside)
    GROUP BY f.stack
)
SELECT coalesce(nullif(regexp_extract(l.f.file, '/(site|dist)-packages/(.*)$', 2), ''),
                regexp_extract(l.f.file, '[^/]*$'))
           || '(' || l.f.line || '): ' || l.f.function AS frame,
       l.f.file AS file, sum(i.samples) AS samples
FROM inside AS i
JOIN located AS l USING (stack)
GROUP BY ALL
ORDER BY samples DESC, frame;
