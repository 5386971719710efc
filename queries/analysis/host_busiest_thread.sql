-- Params: none
-- Needs: schema
-- Where no launch is linked to the work that ended the GPU's idle time
-- (host_launching_thread.sql): the thread with the most runtime/driver calls; of equals,
-- the lowest pid and tid. Columns: pid, tid.
SELECT pid, tid
FROM host_activities
WHERE kind = 'runtime'
GROUP BY pid, tid
ORDER BY count(*) DESC, pid, tid
LIMIT 1;
