-- Params: none
-- Needs: table nsys_chain_ids, table nsys_samples
-- CPU samples read from the export (registered as nsys_samples: sample, global_tid, ts_ns)
-- into host_samples, in time order, each with its chain (nsys_chain_ids). globalTid packs
-- the process id in bits 24..47 and the thread id in bits 0..23 (as nsys_insert_host.sql).
INSERT INTO host_samples
SELECT s.ts_ns,
       (s.global_tid >> 24) & 16777215 AS pid,
       s.global_tid & 16777215 AS tid,
       c.chain
FROM nsys_samples AS s
LEFT JOIN nsys_chain_ids AS c ON c.source = 'sample' AND c.ref = s.sample
WHERE s.ts_ns BETWEEN -4611686018427387903 AND 4611686018427387903
ORDER BY s.ts_ns, pid, tid;
