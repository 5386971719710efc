-- Params: $pid, $tid
-- Needs: table host_range_samples
-- The samples of host_range_samples (host_range_samples.sql) of one thread ($pid, $tid;
-- NULL: every thread), counted by the innermost frame's module and by its function (with
-- its module). Columns: grouping ('module' | 'function'), name, module, samples; largest
-- first. A sample without a call chain counts as '(no call chain)'.
WITH picked AS (
    SELECT chain FROM host_range_samples
    WHERE $tid IS NULL OR (pid = $pid AND tid = $tid)
), leaf AS (
    SELECT coalesce(c.function, '(no call chain)') AS function,
           coalesce(c.module, '(no call chain)') AS module
    FROM picked AS p
    LEFT JOIN host_callchains AS c ON c.chain = p.chain AND c.depth = 0
)
SELECT 'module' AS grouping, module AS name, module, count(*) AS samples
FROM leaf GROUP BY module
UNION ALL
SELECT 'function' AS grouping, function AS name, module, count(*) AS samples
FROM leaf GROUP BY function, module
ORDER BY grouping, samples DESC, name, module;
