-- Params: none
-- Needs: temp table collective_instances
-- What each collective achieved, per (collective, message size, group size), over the
-- instances matched across ranks (collective_instances: rank_collectives.sql), as
-- nccl-tests measures it.
-- A kernel's call (collectives, by its launch's correlation; of an XLA program, its HLO
-- collective with '_' for '-': 'all_reduce') gives the collective and the size: nccl-tests' size, the larger of the elements in and out times the element's bytes
-- (an all-reduce's buffer, an all-gather's gathered output, a reduce-scatter's input; a
-- send's or recv's message); an all-to-all's, what the rank sends (nccl-tests' alltoall
-- size, its send buffer). An all-to-all with split sizes (all_to_allv: an expert-parallel
-- layer's tokens) sends a different size from each rank: its instance's size is the
-- largest, and its instances are summed up together by the power of two their size is
-- at or over (the size the median of theirs), not a row a size. Calls that share a kernel (a send and a recv of one group)
-- are named together ('recv+send') and sized by the larger (what each direction moves);
-- an instance is named by its ranks' calls together (a send on one rank, its recv on the
-- other: 'recv+send'), and left out where its ranks disagree on the size or a rank of
-- the group is missing (its kernel outside that rank's profiling window).
-- Per instance: each rank's wait is the latest start among its kernels minus its own
-- start; the transfer is the instance's last end minus its latest start (from the last
-- rank's arrival until every rank is done). algbw = size / transfer; busbw = algbw times
-- nccl-tests' factor: 2(n-1)/n all-reduce, (n-1)/n all-gather, reduce-scatter, all-to-all,
-- 1 otherwise (n: the group's size).
-- Columns: name, bytes, group_size, instances, transfer_ns_median, algbw_gbps_median,
--          busbw_gbps_median, wait_ns_median (over every rank of every instance), device
--          (a GPU name of the ranks'); largest total transfer time first.
WITH sized AS (
    SELECT rank, correlation, replace(lower(collective), '-', '_') AS collective, group_size,
           CASE WHEN collective ILIKE '%all%to%all%' THEN in_nelems
                ELSE greatest(in_nelems, out_nelems) END * CASE lower(dtype)
               WHEN 'double' THEN 8 WHEN 'long' THEN 8 WHEN 'complexfloat' THEN 8
               WHEN 'float' THEN 4 WHEN 'int' THEN 4
               WHEN 'bfloat16' THEN 2 WHEN 'half' THEN 2 WHEN 'short' THEN 2
               WHEN 'byte' THEN 1 WHEN 'char' THEN 1 WHEN 'bool' THEN 1
               ELSE CASE WHEN lower(dtype) LIKE 'float8%' THEN 1 END END AS bytes
    FROM collectives
    WHERE correlation IS NOT NULL AND lower(collective) NOT IN ('barrier', 'wait')
), calls AS (
    SELECT rank, correlation, string_agg(DISTINCT collective, '+' ORDER BY collective) AS name,
           max(bytes) AS bytes, max(group_size) AS group_size
    FROM sized
    GROUP BY rank, correlation
), kernels AS (
    SELECT i.rank, i.device, i.name AS kernel, i.instance, i.start_ns, i.end_ns,
           c.name, c.bytes, c.group_size,
           max(i.start_ns) OVER instance AS latest_start_ns,
           max(i.end_ns) OVER instance AS last_end_ns
    FROM collective_instances AS i
    JOIN calls AS c USING (rank, correlation)
    WHERE i.ranks > 1
    WINDOW instance AS (PARTITION BY i.name, i.instance)
), instances AS (
    SELECT kernel, instance,
           string_agg(DISTINCT name, '+' ORDER BY name) AS names, max(bytes) AS bytes,
           max(group_size) AS group_size, any_value(rank) AS rank, any_value(device) AS device,
           any_value(last_end_ns - latest_start_ns) AS transfer_ns,
           list(latest_start_ns - start_ns) AS waits
    FROM kernels
    GROUP BY kernel, instance
    -- every rank of the group there (not one outside another's profiling window), all of
    -- one size but an all-to-all's
    HAVING (count(DISTINCT bytes) = 1 OR bool_and(name ILIKE '%all%to%all%'))
       AND count(*) = max(group_size)
), rated AS (
    SELECT * EXCLUDE (names),
           array_to_string(list_sort(list_distinct(string_split(names, '+'))), '+') AS name,
           bytes / transfer_ns AS algbw_gbps,  -- bytes per ns = GB/s
           bytes / transfer_ns * CASE
               WHEN name LIKE '%allreduce%' OR name LIKE '%all_reduce%'
                   THEN 2 * (group_size - 1) / group_size
               WHEN name LIKE '%allgather%' OR name LIKE '%all_gather%'
                    OR name LIKE '%reduce_scatter%' OR name LIKE '%alltoall%'
                    OR name LIKE '%all_to_all%'
                   THEN (group_size - 1) / group_size
               ELSE 1 END AS busbw_gbps
    FROM instances
    WHERE transfer_ns > 0 AND bytes > 0
)
SELECT r.name, median(r.bytes)::BIGINT AS bytes, r.group_size, count(*) AS instances,
       median(r.transfer_ns)::BIGINT AS transfer_ns_median,
       median(r.algbw_gbps) AS algbw_gbps_median,
       median(r.busbw_gbps) AS busbw_gbps_median,
       (SELECT median(w) FROM (SELECT unnest(flatten(list(r.waits))) AS w))::BIGINT
           AS wait_ns_median,
       min(d.name) AS device
FROM rated AS r
LEFT JOIN devices AS d ON d.rank = r.rank AND d.device = r.device
GROUP BY r.name,
         CASE WHEN r.name LIKE '%all_to_allv%' THEN -floor(log2(r.bytes)) ELSE r.bytes END,
         r.group_size
ORDER BY sum(r.transfer_ns) DESC, r.name, median(r.bytes);
