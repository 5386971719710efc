-- Params: none
-- Needs: schema
-- Whether any rank of a combined run recorded c10d's calls (Kineto's record_param_comms,
-- or an XLA program's HLO collectives: not NCCL's own payloads, group_desc 'NCCL'): where
-- none did, rank_parallelism.sql reads the kinds from the NCCL kernels ($from_kernels).
-- Columns: recorded
SELECT EXISTS (SELECT 1 FROM collectives WHERE group_desc IS DISTINCT FROM 'NCCL')
    AS recorded;
