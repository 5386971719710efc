-- Params: none
-- Needs: none
-- Nsight Compute per-instruction results (the SourceCounters section) of a loaded report.
-- Filled by tui/sources/ncu/load_source.py, a launch at a time, from a .ncu-rep only (the CSV
-- pages have no instruction-level data). Addresses are the GPU virtual addresses ncu
-- recorded; `line` is the CUDA source line the compiler's line table (-lineinfo) gives.

-- Which launches were read, and whether they had source counters at all.
CREATE TABLE IF NOT EXISTS ncu_source_launches (
    launch_id    INTEGER PRIMARY KEY,
    has_counters BOOLEAN   -- false: profiled without SourceCounters
);

-- Every SASS instruction of each profiled function, in address order.
CREATE TABLE IF NOT EXISTS ncu_sass (
    launch_id                INTEGER,
    address                  UBIGINT,
    function                 VARCHAR,  -- the kernel, or 'function at +0x..' for other code
    file                     VARCHAR,  -- NULL without line information
    line                     INTEGER,
    instruction              VARCHAR,  -- as ncu prints it: '@!P0  LDG.E R2, desc[UR6][R2.64]'
    inst_executed            BIGINT,   -- warp-level instructions executed
    thread_inst_executed     BIGINT,   -- thread-level
    stall_samples            BIGINT,   -- warp samples on this instruction, any reason
    stall_samples_not_issued BIGINT    -- of those, samples when no warp issued
);

-- Every source line of each instruction: the rows of the compiler's line table that cover
-- it, inlined frames included (a header's line and its call site may share an
-- instruction), as Nsight Compute's Source page counts them; where the report holds no
-- line table, the one line `ncu_sass` names.
CREATE TABLE IF NOT EXISTS ncu_sass_lines (
    launch_id INTEGER,
    address   UBIGINT,
    file      VARCHAR,
    line      INTEGER
);

-- Warp samples by reason (smsp__pcsamp_warps_issue_stalled_<reason>[_not_issued]).
CREATE TABLE IF NOT EXISTS ncu_sass_stalls (
    launch_id          INTEGER,
    address            UBIGINT,
    reason             VARCHAR,  -- 'long_scoreboard', 'wait', 'selected', ...
    samples            BIGINT,
    samples_not_issued BIGINT
);

-- Other per-instruction metrics, by raw name (memory_l1_tag_requests_global,
-- memory_l2_theoretical_sectors_global, derived__memory_l1_conflicts_shared_nway, ...).
CREATE TABLE IF NOT EXISTS ncu_sass_metrics (
    launch_id INTEGER,
    address   UBIGINT,
    metric    VARCHAR,
    value     DOUBLE
);

-- Scoreboard-stall samples on a consumer, attributed to the load (or other
-- variable-latency producer) whose register it waits for (tui/sources/ncu/sass.py); a consumer
-- waiting on several producers shares its samples out evenly.
CREATE TABLE IF NOT EXISTS ncu_sass_waits (
    launch_id INTEGER,
    address   UBIGINT,   -- the stalled consumer
    reason    VARCHAR,   -- 'long_scoreboard' | 'short_scoreboard'
    producer  UBIGINT,   -- the instruction that writes the awaited register
    samples   DOUBLE
);

-- The CUDA source text, one row per line: imported into the report, or read from disk.
CREATE TABLE IF NOT EXISTS ncu_source_text (
    file VARCHAR,
    line INTEGER,
    text VARCHAR
);

-- Where each file's text came from: 'report' | 'disk' | NULL (not found).
CREATE TABLE IF NOT EXISTS ncu_source_files (
    file   VARCHAR PRIMARY KEY,
    origin VARCHAR,
    path   VARCHAR  -- the file read, when from disk
);
