-- Params: {rows}
-- Needs: schema
-- The temp table dist_work ({rows}: dist_work.sql, which says what it holds, and its
-- parameters, $since and $until spanning every GPU id) of a trace of one process
-- (dist_links.sql's launch calls: a Kineto trace's) whose GPU work is taken in one part:
-- in one statement, without the table macros that take the work a part at a time (their
-- definitions and expansion were ~3 of a DDP rank's ~6 ms). Its links are dist_links.sql's
-- join, as written there: a change to it is made here too
-- (tests/analysis/test_distributed.py compares the rows).
CREATE OR REPLACE TEMP TABLE dist_work AS
WITH links AS (
    -- the calls found (at most one a GPU row) on the join's right: the side a small
    -- trace's hash join builds (db.light_plans), not every host row (4.7 -> 3.4 ms a DDP rank)
    SELECT l.gpu_id,
           {'id': r.id, 'name': regexp_replace(r.name, '_v[0-9]+$', ''),
            'start_ns': r.start_ns, 'end_ns': r.end_ns, 'pid': r.pid, 'tid': r.tid} AS call
    FROM host_activities AS r
    JOIN (
        SELECT g.id AS gpu_id, min(r.id) AS call_id
        FROM gpu_activities AS g
        JOIN host_activities AS r ON r.correlation = g.correlation AND r.kind = 'runtime'
        WHERE g.correlation IS NOT NULL
        GROUP BY g.id
    ) AS l ON r.id = l.call_id
)
SELECT * FROM ({rows});
