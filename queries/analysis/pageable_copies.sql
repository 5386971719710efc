-- Params: none
-- Needs: schema
-- Copies from or to pageable host memory, longest first: the pageable_copies finding, for
-- traces without the runtime calls that cuda_memcpy_async needs to tell which call issued
-- a copy. Columns: start_ns, duration_ns, device, stream, bytes, copy_kind, src_kind,
-- dst_kind.
SELECT start_ns, duration_ns, device, stream, bytes, copy_kind, src_kind, dst_kind
FROM gpu_activities
WHERE kind = 'memcpy' AND (src_kind = 'Pageable' OR dst_kind = 'Pageable')
ORDER BY duration_ns DESC, start_ns, device;
