-- Params: none
-- Needs: sqlite PROCESSES, sqlite StringIds, sqlite ThreadNames
-- Run inside the Nsight Systems SQLite export: each named thread (ThreadNames) with its
-- process's name (PROCESSES), pid and tid split out of globalTid as host rows are
-- (nsys_insert_host.sql). Columns: pid, tid, process_name, thread_name
SELECT (t.globalTid >> 24) & 16777215 AS pid,
       t.globalTid & 16777215 AS tid,
       p.name AS process_name,
       s.value AS thread_name
FROM ThreadNames AS t
LEFT JOIN StringIds AS s ON s.id = t.nameId
LEFT JOIN PROCESSES AS p ON p.globalPid = t.globalTid - (t.globalTid & 16777215)
