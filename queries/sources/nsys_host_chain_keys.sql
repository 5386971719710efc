-- Params: $source
-- Needs: table nsys_chain_frames, table nsys_frames
-- The call chains' frames of one kind of nsys host rows ($source: 'sample' | 'os'), read
-- from the export (registered as nsys_frames: ref, depth, symbol_id, module_id), into the
-- temp table nsys_chain_frames (nsys_host_staging.sql).
INSERT INTO nsys_chain_frames
SELECT $source AS source, ref, depth, symbol_id, module_id
FROM nsys_frames
WHERE ref IS NOT NULL AND depth IS NOT NULL AND symbol_id IS NOT NULL AND module_id IS NOT NULL;
