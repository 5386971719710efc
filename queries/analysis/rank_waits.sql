-- Params: none
-- Needs: temp table collective_instances
-- Per rank of a combined run: how long its NCCL kernels waited for other ranks, the
-- collective (kernel name) it waited in longest, and how long the others waited for it.
-- Reads the temporary table `collective_instances` (rank_collectives.sql), which holds
-- the ranks that ran at least one NCCL kernel.
-- Columns: rank, wait_ns, waits_in, waits_in_ns, longest_wait_ns, longest_wait_start_ns,
--          caused_ns (the other ranks' wait in instances where this rank arrived last),
--          instances (matched on 2+ ranks), unmatched (kernels seen on this rank only).
WITH per_name AS (
    SELECT rank, name, sum(wait_ns) AS wait_ns
    FROM collective_instances
    GROUP BY rank, name
), worst_name AS (
    SELECT rank, arg_max(name, wait_ns) AS waits_in, max(wait_ns) AS waits_in_ns
    FROM per_name
    WHERE wait_ns > 0
    GROUP BY rank
), per_rank AS (
    SELECT rank,
           sum(wait_ns) AS wait_ns,
           max(wait_ns) AS longest_wait_ns,
           CASE WHEN max(wait_ns) > 0 THEN arg_max(start_ns, wait_ns) END
               AS longest_wait_start_ns,
           count(*) FILTER (WHERE ranks > 1) AS instances,
           count(*) FILTER (WHERE ranks = 1) AS unmatched
    FROM collective_instances
    GROUP BY rank
), caused AS (
    SELECT waited_for AS rank, sum(wait_ns) AS caused_ns
    FROM collective_instances
    WHERE ranks > 1
    GROUP BY waited_for
)
SELECT
    p.rank,
    p.wait_ns::BIGINT AS wait_ns,
    w.waits_in,
    coalesce(w.waits_in_ns, 0)::BIGINT AS waits_in_ns,
    p.longest_wait_ns::BIGINT AS longest_wait_ns,
    p.longest_wait_start_ns,
    coalesce(c.caused_ns, 0)::BIGINT AS caused_ns,
    p.instances,
    p.unmatched
FROM per_rank AS p
LEFT JOIN worst_name AS w USING (rank)
LEFT JOIN caused AS c USING (rank)
ORDER BY p.rank;
