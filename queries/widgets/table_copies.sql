-- Params: none
-- Needs: schema
-- Copies and sets by kind, direction and memory kinds: how many, how much, how fast, and
-- the longest one (for Enter to jump to). Throughput is bytes / busy time: bytes per ns
-- is GB/s. host_memory says pageable or pinned for host-side copies when the source says.
-- Columns: kind, direction, host_memory, route, count, bytes, total_ns, avg_ns, gb_per_s,
--          longest_id, longest_start_ns, longest_end_ns, longest_device, longest_stream.
SELECT
    kind,
    coalesce(copy_kind, CASE WHEN kind = 'memset' THEN 'set' END, '?') AS direction,
    CASE
        WHEN copy_kind = 'HtoD' THEN src_kind
        WHEN copy_kind = 'DtoH' THEN dst_kind
        WHEN copy_kind = 'HtoH' THEN concat_ws('/', src_kind, dst_kind)
    END AS host_memory,
    CASE WHEN src_kind IS NOT NULL OR dst_kind IS NOT NULL
         THEN concat(coalesce(src_kind, '?'), ' → ', coalesce(dst_kind, '?'))
         ELSE name END AS route,
    count(*) AS count,
    sum(bytes)::BIGINT AS bytes,
    sum(duration_ns)::BIGINT AS total_ns,
    avg(duration_ns) AS avg_ns,
    CASE WHEN sum(duration_ns) > 0 THEN sum(bytes)::DOUBLE / sum(duration_ns) END AS gb_per_s,
    arg_max(id, duration_ns) AS longest_id,
    arg_max(start_ns, duration_ns) AS longest_start_ns,
    arg_max(end_ns, duration_ns) AS longest_end_ns,
    arg_max(device, duration_ns) AS longest_device,
    arg_max(stream, duration_ns) AS longest_stream
FROM gpu_activities
WHERE kind IN ('memcpy', 'memset')
GROUP BY ALL
