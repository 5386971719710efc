-- Params: none
-- Needs: schema
-- Fragment of gap_thread_calls.sql: the OS runtime calls (nsys -t osrt).
SELECT pid, tid, start_ns, end_ns, name FROM os_calls
