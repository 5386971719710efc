-- Params: {gpu_events}
-- Needs: none
-- GPU work in the parsed Kineto events, as the view staged_gpu (finalize_activities.sql
-- writes it out sorted; a view, not a table: the rows are read once, not copied twice).
-- The view is the scratch database's, which another connection reads too (on 4 cores or
-- more the GPU rows are sorted there beside the host rows' copy: tui/loading/trace.py),
-- and a temp view of the same name over it, which every loader's finalize reads.
-- Kineto writes tid = stream; args.stream says the same where present and wins. The rows:
-- {gpu_events}, kineto_gpu_events.sql (which kineto_event_counts.sql counts too).
CREATE VIEW scratch.staged_gpu (
    kind, device, stream, start_ns, end_ns, duration_ns, name, correlation,
    grid_x, grid_y, grid_z, block_x, block_y, block_z, registers_per_thread,
    shared_memory_bytes, bytes, copy_kind, src_kind, dst_kind, src_device, dst_device,
    hlo_module, hlo_op, tf_op
) AS
SELECT
    kind, device, stream, start_ns, end_ns, end_ns - start_ns AS duration_ns, name, correlation,
    TRY_CAST(args.grid[1] AS INTEGER), TRY_CAST(args.grid[2] AS INTEGER),
    TRY_CAST(args.grid[3] AS INTEGER),
    TRY_CAST(args.block[1] AS INTEGER), TRY_CAST(args.block[2] AS INTEGER),
    TRY_CAST(args.block[3] AS INTEGER),
    TRY_CAST(args."registers per thread" AS INTEGER),
    TRY_CAST(args."shared memory" AS BIGINT),
    TRY_CAST(args.bytes AS BIGINT),
    CASE WHEN kind = 'memcpy' THEN regexp_extract(name, '(HtoD|DtoH|DtoD|HtoH|PtoP)') END,
    CASE WHEN kind = 'memcpy' THEN nullif(regexp_extract(name, '\(([A-Za-z ]+) ->', 1), '') END,
    CASE WHEN kind = 'memcpy' THEN nullif(regexp_extract(name, '-> ([A-Za-z ]+)\)', 1), '')
         -- a memset names the memory it sets: 'Memset (Device)'
         WHEN kind = 'memset' THEN nullif(regexp_extract(name, '\(([A-Za-z ]+)\)', 1), '') END,
    NULL, NULL,  -- src_device, dst_device: nsys only
    NULL, NULL, NULL  -- hlo_module, hlo_op, tf_op: XLA traces only
FROM (
    SELECT
        CASE cat
            WHEN 'kernel' THEN 'kernel'
            WHEN 'gpu_memcpy' THEN 'memcpy'
            WHEN 'memcpy' THEN 'memcpy'
            ELSE 'memset'
        END AS kind,
        device,
        coalesce(TRY_CAST(args.stream AS BIGINT),
                 TRY_CAST(regexp_extract(tid, '\d+') AS BIGINT)) AS stream,
        start_ns,
        start_ns + duration_ns AS end_ns,
        name,
        TRY_CAST(args.correlation AS BIGINT) AS correlation,
        args
    FROM ({gpu_events})
);

CREATE TEMP VIEW staged_gpu AS FROM scratch.staged_gpu;
