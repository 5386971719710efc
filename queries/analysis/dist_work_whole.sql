-- Params: $cutoff_ns, $hta_calls
-- Needs: schema
-- The temp table dist_work (dist_work.sql says what it holds) of a trace of one process
-- (dist_links.sql's launch calls: a Kineto trace's) whose GPU work is taken in one part:
-- dist_work.sql's rows in one statement, without the two table macros that take the work
-- a part at a time (their definitions and expansion were ~3 of a DDP rank's ~6 ms). Its
-- SELECT is dist_work.sql's over dist_links.sql's join, as written there: a change to
-- either is made here too (tests/analysis/test_distributed.py compares the rows).
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
SELECT g.id, g.device, g.stream, g.start_ns, g.end_ns, g.kind,
       CASE
           WHEN regexp_matches(g.name, '^nccl.*Kernel') THEN 'comm'
           WHEN regexp_matches(coalesce(g.hlo_op, ''),
                '^(all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute)')
               THEN 'comm'
           WHEN regexp_matches(g.name, '^(Memcpy|Memset|dma)') THEN 'memory'
           WHEN contains(g.name, 'Memcpy') OR contains(g.name, 'Sync') THEN 'other'
           ELSE 'compute'
       END AS class,
       l.call.id AS call_id, l.call.start_ns AS call_start_ns, l.call.end_ns AS call_end_ns,
       l.call.pid AS call_pid, l.call.tid AS call_tid,
       CASE WHEN $hta_calls
            THEN coalesce(l.call.name IN ('cudaLaunchKernel', 'cudaLaunchKernelExC',
                                          'cudaMemcpyAsync', 'cudaMemsetAsync'), FALSE)
            ELSE l.call.id IS NOT NULL END AS stat_launch,
       CASE WHEN $hta_calls
            THEN coalesce(l.call.name IN ('cudaLaunchKernel', 'cudaLaunchKernelExC',
                                          'cuLaunchKernel', 'cudaMemcpyAsync',
                                          'cudaMemsetAsync'), FALSE)
            ELSE l.call.id IS NOT NULL END AS queued
FROM gpu_activities AS g
LEFT JOIN links AS l ON l.gpu_id = g.id
WHERE ($cutoff_ns IS NULL OR l.call.start_ns < $cutoff_ns);
