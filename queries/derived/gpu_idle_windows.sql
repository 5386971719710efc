-- Params: none
-- Needs: schema
-- Every stretch on a device where no kernel, copy or set runs on any stream: the gaps
-- in the union of all GPU activity intervals, from the device's first activity to its
-- last. For each gap: the activity that was last to finish before it (before_id) and the
-- one that ends it (after_id). tui/derived/gpu_idle.py finds the same rows in NumPy, a
-- batch at a time; this is for activities not stored in id order (no loader's).
--
-- A gap opens where an activity starts after everything before it (in id order, which
-- is (device, start_ns, end_ns) order) has ended. "Everything before it" is a running max
-- of end_ns, taken in blocks of 65,536 ids: within a block by a window, and across blocks
-- from each block's max. One window over a device's whole activity list ran out of memory
-- under the 1GB budget on 15M activities; blocks are small partitions, processed in
-- parallel. The max carries the activity with it: end_ns (less the trace's least end_ns,
-- so it is never negative) shifted above the id (ids stay under 2^40), so the max of the
-- packed values is the latest end and, among equal ends, the highest id, i.e. before_id.
CREATE OR REPLACE TABLE gpu_idle AS
WITH base AS (
    SELECT min(end_ns) AS end_ns FROM gpu_activities
), packed AS NOT MATERIALIZED (
    SELECT a.id, a.device, a.start_ns, a.id // 65536 AS block,
           (a.end_ns - base.end_ns)::HUGEINT << 40 | a.id AS last_end
    FROM gpu_activities AS a, base
), block_last AS (
    SELECT device, block, max(last_end) AS last_end FROM packed GROUP BY ALL
), before_block AS (
    SELECT device, block,
           max(last_end) OVER (PARTITION BY device ORDER BY block
                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS last_end
    FROM block_last
), within_block AS (
    SELECT id, device, block, start_ns,
           max(last_end) OVER (PARTITION BY device, block ORDER BY id
                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS last_end
    FROM packed
), ended_before AS (
    -- greatest() skips NULLs: NULL only for a device's first activity
    SELECT w.device, w.id AS after_id, w.start_ns AS after_start_ns,
           greatest(w.last_end, b.last_end) AS last_end
    FROM within_block AS w JOIN before_block AS b USING (device, block)
), gaps AS (
    SELECT device, after_id, after_start_ns,
           (last_end >> 40)::BIGINT + (SELECT end_ns FROM base) AS start_ns,
           (last_end & (1::HUGEINT << 40) - 1)::BIGINT AS before_id
    FROM ended_before
)
SELECT device, start_ns, after_start_ns AS end_ns, after_start_ns - start_ns AS duration_ns,
       before_id, after_id
FROM gaps
WHERE after_start_ns > start_ns
ORDER BY device, start_ns;
