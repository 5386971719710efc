-- Params: none
-- Needs: table nsys_chain_ids, table nsys_os, table nsys_strings
-- OS runtime calls read from the export (registered as nsys_os: global_tid, start_ns,
-- end_ns, name_id, ref) into os_calls, in time order, named through nsys_strings and each
-- with its chain (nsys_chain_ids); rows with no time or ending before they start are left
-- out, as host rows are.
INSERT INTO os_calls
SELECT (o.global_tid >> 24) & 16777215 AS pid,
       o.global_tid & 16777215 AS tid,
       o.start_ns, o.end_ns, o.end_ns - o.start_ns AS duration_ns,
       coalesce(CAST(n.value AS VARCHAR), '(no name)') AS name,
       c.chain
FROM nsys_os AS o
LEFT JOIN nsys_strings AS n ON n.id = o.name_id
LEFT JOIN nsys_chain_ids AS c ON c.source = 'os' AND c.ref = o.ref
WHERE o.start_ns >= -4611686018427387903 AND o.end_ns <= 4611686018427387903
  AND o.end_ns >= o.start_ns
ORDER BY o.start_ns, pid, tid;
