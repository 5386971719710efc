-- Params: $anchor, $end_ns, $repeats, $start_ns, $stride, {waited}
-- Needs: schema
-- The steps of a window of the kernel sequence's repeats (kind `iteration`: nothing in the
-- trace marks its steps), as window_steps.sql gives annotated ones: each thread that
-- launched the anchor kernel ($anchor, the kernel that comes once a repeat) in the window
-- ($start_ns..$end_ns) has a step from each such launch call's start to its next one's
-- (`repeat 1`, `repeat 2`, …; the last launch, with no next, ends none), or, where the
-- anchor comes $stride times a repeat (work_iteration_strided.sql), from every $stride-th
-- launch to the next such, the first in the window first; with each, the
-- time its thread spent in calls that wait on the GPU inside it (window_step_waits.sql,
-- as window_steps.sql). The anchor is the kernel of that name on the stream the
-- iteration was found on, on each device: the stream where it came nearest $stride
-- times each of the $repeats repeats. A kernel of the same name on another stream is
-- not it: DDP's gradient all-reduces, launched from the backward's thread on NCCL's
-- stream, beside a `dist.barrier()`'s on the compute stream once a step
-- (`unannotated/ddp_barrier_json.sqlite`: 195 and 39 in the window; their steps were
-- counted together, 194% of it).
-- Columns: name, pid, tid, start_ns, end_ns (the step's host range), waited_ns, by start.
WITH launched AS (
    SELECT h.pid, h.tid, h.start_ns, g.device, g.stream
    FROM gpu_activities AS g
    JOIN launches AS l ON l.gpu_id = g.id
    JOIN host_activities AS h ON h.id = l.runtime_id
    WHERE g.name = $anchor AND g.start_ns >= $start_ns AND g.start_ns < $end_ns
), sequence AS (
    SELECT device, stream
    FROM launched
    GROUP BY device, stream
    QUALIFY row_number() OVER (PARTITION BY device
                               ORDER BY abs(count(*) - $repeats * $stride), stream) = 1
), anchors AS (
    SELECT pid, tid, start_ns
    FROM launched
    SEMI JOIN sequence USING (device, stream)
    QUALIFY (row_number() OVER (PARTITION BY pid, tid ORDER BY start_ns) - 1)
            % $stride = 0
), steps AS (
    SELECT 'repeat ' || row_number() OVER (PARTITION BY pid, tid ORDER BY start_ns) AS name,
           pid, tid, start_ns,
           lead(start_ns) OVER (PARTITION BY pid, tid ORDER BY start_ns) AS end_ns
    FROM anchors
    QUALIFY end_ns IS NOT NULL AND end_ns > start_ns
),
{waited}
