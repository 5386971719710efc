-- Params: $bottom_up, $pid, $tid
-- Needs: table host_range_samples
-- The samples of host_range_samples of one thread ($pid, $tid; NULL: every thread) as a
-- call tree: one row per call path, the frames from the outermost down ($bottom_up false:
-- top-down, a node's samples are those taken in it or below it) or from the innermost up
-- ($bottom_up true: a leaf function, then its callers). Columns: path (the frames, each
-- 'function (module)'), samples, self (taken with the path's last frame innermost;
-- top-down only).
WITH picked AS (
    SELECT chain, count(*) AS samples
    FROM host_range_samples
    WHERE ($tid IS NULL OR (pid = $pid AND tid = $tid)) AND chain IS NOT NULL
    GROUP BY chain
), frames AS (
    SELECT p.chain, p.samples, c.depth, c.function || ' (' || c.module || ')' AS frame
    FROM picked AS p
    JOIN host_callchains AS c USING (chain)
), paths AS (
    SELECT samples, depth,
           CASE WHEN $bottom_up
                THEN list(frame) OVER (PARTITION BY chain ORDER BY depth
                                       ROWS UNBOUNDED PRECEDING)
                ELSE list(frame) OVER (PARTITION BY chain ORDER BY depth DESC
                                       ROWS UNBOUNDED PRECEDING)
           END AS path
    FROM frames
)
SELECT path, sum(samples) AS samples,
       sum(CASE WHEN depth = 0 AND NOT $bottom_up THEN samples ELSE 0 END) AS self
FROM paths
GROUP BY path
ORDER BY path;
