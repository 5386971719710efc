-- Params: $cpu_math, {launchers}
-- Needs: schema
-- Where the CPU samples of each gap of `context_gaps` (gap_overlaps.sql) were taken on the
-- thread that launched the work ending it (its launch call, by correlation id): the two
-- modules (of the innermost frame) holding most of them, and how many were in math on the
-- CPU (the innermost frame's function matching $cpu_math: PyTorch's CPU kernels, BLAS).
-- One row per gap with samples: gap_no, samples (the thread's in the gap), top ([{module,
-- samples}], largest first), cpu_math.
-- A device's gaps never overlap, so each sample of a launching thread finds the one gap
-- of each device that may hold it by an as-of join: no sample is compared with every gap.
WITH launcher AS (
    {launchers}
), candidates AS (
    SELECT s.ts_ns, s.pid, s.tid, s.chain, d.device
    FROM host_samples AS s
    JOIN (SELECT DISTINCT pid, tid FROM launcher) AS t USING (pid, tid)
    CROSS JOIN (SELECT DISTINCT device FROM launcher) AS d
), taken AS (
    SELECT l.gap_no, coalesce(c.module, '(no call chain)') AS module, count(*) AS samples,
           count(*) FILTER (WHERE regexp_matches(c.function, $cpu_math)) AS cpu_math
    FROM candidates AS s
    ASOF JOIN launcher AS l ON l.device = s.device AND s.ts_ns >= l.start_ns
    LEFT JOIN host_callchains AS c ON c.chain = s.chain AND c.depth = 0
    WHERE s.ts_ns < l.end_ns AND s.pid = l.pid AND s.tid = l.tid
    GROUP BY l.gap_no, module
)
SELECT gap_no, sum(samples) AS samples,
       list({'module': module, 'samples': samples} ORDER BY samples DESC, module)[1:2] AS top,
       sum(cpu_math) AS cpu_math
FROM taken
GROUP BY gap_no
ORDER BY gap_no;
