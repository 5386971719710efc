-- How much work each way of finishing stacks_last_started.sql would take: the level
-- lookups the levels query needs (a level per level above each ended range), and the
-- ranges the sweep (stacks_innermost.sql) sorts twice.
SELECT (SELECT coalesce(sum(depth), 0) FROM stacks_last_started
        WHERE end_ns <= t AND depth > 0) AS level_lookups,
       (SELECT count(*) FROM stacks_ranges) AS ranges;
