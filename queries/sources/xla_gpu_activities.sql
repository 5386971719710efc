-- Params: none
-- Needs: temp table staged_gpu, temp table xla_events, temp macro xla_ns, temp table xla_pids
-- GPU work in an XLA profile's staged events (xla_events), into the temp table staged_gpu
-- (staging_tables.sql) that finalize_activities.sql writes out. GPU work is the complete events of the processes
-- named '/device:GPU:<N>' (xla_pids, role 'gpu'): a thread per stream, tid = the stream
-- id (thread 'Stream #14(Compute,Memset)'). The join may reorder the rows: no matter,
-- finalize_activities.sql sorts them.
-- A copy carries memcpy_details, a set Memset_details, a kernel kernel_details (its launch
-- configuration); an event with none of them is a kernel too (named as such by the
-- loader's warning), and so is an unnamed one. The thread named '_counters_' is no stream:
-- the trace viewer's JSON keeps the GPU's PM-sampled counters there as events, one per
-- metric and sample (read from the run's XSpace instead: tui/sources/xla_counters.py).
INSERT INTO staged_gpu (
    kind, device, stream, start_ns, end_ns, duration_ns, name, correlation,
    grid_x, grid_y, grid_z, block_x, block_y, block_z, registers_per_thread,
    shared_memory_bytes, bytes, copy_kind, src_kind, dst_kind, hlo_module, hlo_op, tf_op
)
WITH work AS (
    SELECT
        CASE
            WHEN args.memcpy_details IS NOT NULL OR starts_with(name, 'Memcpy') THEN 'memcpy'
            WHEN args."Memset_details" IS NOT NULL OR starts_with(name, 'Memset') THEN 'memset'
            ELSE 'kernel'
        END AS kind,
        p.device,
        tid AS stream,
        xla_ns(ts) AS start_ns,
        xla_ns(ts) + xla_ns(dur) AS end_ns,
        name, args
    FROM xla_events
    JOIN xla_pids AS p USING (pid)
    WHERE ph = 'X' AND p.role = 'gpu'
      AND dur >= 0 AND tid IS NOT NULL
      AND (pid, tid) NOT IN (SELECT pid, tid FROM xla_events
                             WHERE ph = 'M' AND name = 'thread_name'
                               AND args."name" = '_counters_')
      -- start and end within ±2^62 ns, so no difference of two times overflows
      AND xla_ns(ts) BETWEEN -4611686018427387903 AND 4611686018427387903
      AND xla_ns(ts)::HUGEINT + xla_ns(dur) <= 4611686018427387903
), launch AS (
    SELECT *,
        -- 'grid:128,1,1' -> ['128', '1', '1']
        string_split(regexp_extract(args.kernel_details, 'grid:([0-9,]+)', 1), ',') AS grid,
        string_split(regexp_extract(args.kernel_details, 'block:([0-9,]+)', 1), ',') AS block,
        -- 'MemcpyH2D' -> 'HtoD', as the other sources spell the direction
        regexp_extract(name, '^Memcpy([HDP])2([HDP])', ['s', 'd']) AS dir,
        -- 'kind_src:pinned kind_dst:device' -> 'Pinned', 'Device' ('unknown': NULL)
        nullif(regexp_extract(args.memcpy_details, 'kind_src:(\w+)', 1), 'unknown') AS src,
        nullif(regexp_extract(args.memcpy_details, 'kind_dst:(\w+)', 1), 'unknown') AS dst
    FROM work
)
SELECT
    kind, device, stream, start_ns, end_ns, end_ns - start_ns, name,
    TRY_CAST(args.correlation_id AS BIGINT),
    TRY_CAST(grid[1] AS INTEGER), TRY_CAST(grid[2] AS INTEGER), TRY_CAST(grid[3] AS INTEGER),
    TRY_CAST(block[1] AS INTEGER), TRY_CAST(block[2] AS INTEGER), TRY_CAST(block[3] AS INTEGER),
    TRY_CAST(regexp_extract(args.kernel_details, 'regs:(\d+)', 1) AS INTEGER),
    TRY_CAST(regexp_extract(args.kernel_details, 'static_shared:(\d+)', 1) AS BIGINT)
        + TRY_CAST(regexp_extract(args.kernel_details, 'dynamic_shared:(\d+)', 1) AS BIGINT),
    CASE kind
        WHEN 'memcpy' THEN TRY_CAST(regexp_extract(args.memcpy_details, 'size:(\d+)', 1) AS BIGINT)
        WHEN 'memset' THEN TRY_CAST(regexp_extract(args."Memset_details", 'num_bytes:(\d+)', 1)
                                    AS BIGINT)
    END,
    CASE WHEN kind = 'memcpy' AND dir.s <> '' THEN dir.s || 'to' || dir.d END,
    CASE WHEN kind = 'memcpy' THEN upper(src[1]) || src[2:] END,
    CASE WHEN kind = 'memcpy' THEN upper(dst[1]) || dst[2:] END,
    args.hlo_module, args.hlo_op, args.tf_op
FROM launch;
