-- Memory copies by direction and host memory kind. Columns: copy_kind, src_kind,
-- dst_kind, count, bytes, total_ns.
SELECT copy_kind, src_kind, dst_kind, count(*) AS count, sum(bytes)::BIGINT AS bytes,
       sum(duration_ns)::BIGINT AS total_ns
FROM gpu_activities
WHERE kind = 'memcpy'
GROUP BY ALL
ORDER BY total_ns DESC;
