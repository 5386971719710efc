-- Params: $cores, $patterns
-- Needs: schema
-- Every matrix kernel name (GEMM, convolution, attention) with where it did its math, by
-- the first rule whose pattern its name contains, any case (tui/analysis/tensor_cores.py's
-- RULES, given in order as two lists): 'tensor', 'cuda' or 'unknown'; names of rule
-- 'none' and names no rule matches are left out. Time as nsys stats -r cuda_gpu_kern_sum
-- sums it per name.
-- Columns: name, cores, count, ns (longest first).
WITH rules AS (
    SELECT unnest($patterns) AS pattern, unnest($cores) AS cores,
           unnest(range(len($patterns))) AS rank
),
names AS (
    SELECT name, count(*) AS count, sum(duration_ns)::BIGINT AS ns
    FROM gpu_activities
    WHERE kind = 'kernel' AND name IS NOT NULL
    GROUP BY name
),
decided AS (
    SELECT n.name, n.count, n.ns, arg_min(r.cores, r.rank) AS cores
    FROM names n JOIN rules r ON regexp_matches(n.name, r.pattern, 'i')
    GROUP BY n.name, n.count, n.ns
)
SELECT name, cores, count, ns
FROM decided
WHERE cores <> 'none'
ORDER BY ns DESC, name;
