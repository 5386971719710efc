-- Params: none
-- Needs: none
-- Nsight Compute results: one report per connection (load_ncu replaces what was there).
-- Filled by tui/sources/ncu/load.py from a .ncu-rep or an `ncu --csv --page details|raw` export.
-- Values are in base units whatever the input printed (ns, byte, byte/s, hz), like
-- `ncu --print-units base`, so the three input forms give the same numbers.

-- key/value facts about the loaded report: path, format, tool, device.
CREATE TABLE IF NOT EXISTS ncu_meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR
);

-- One row per profiled kernel launch, in the report's order.
CREATE TABLE IF NOT EXISTS ncu_kernels (
    launch_id            INTEGER PRIMARY KEY,  -- 0-based, report order (ncu's "ID")
    name                 VARCHAR,  -- demangled name as ncu prints it
    short_name           VARCHAR,  -- function name without namespaces, templates, parameters
    mangled_name         VARCHAR,  -- only a .ncu-rep carries it; NULL from CSV
    grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
    block_x INTEGER, block_y INTEGER, block_z INTEGER,
    registers_per_thread INTEGER,
    shared_memory_bytes  BIGINT,   -- static + dynamic shared memory per block
    duration_ns          BIGINT,   -- gpu__time_duration.sum
    device               INTEGER,  -- CUDA device index
    device_name          VARCHAR,  -- e.g. 'NVIDIA H200' when the input has it
    compute_capability   VARCHAR,  -- e.g. '9.0'
    context              BIGINT,
    stream               BIGINT,
    process_id           BIGINT,
    process_name         VARCHAR
);

-- Every metric of every launch. From the details page `name` is ncu's label (e.g.
-- 'Compute (SM) Throughput') and `section` its section; from a raw page or a .ncu-rep
-- `name` is the raw metric name (e.g. 'sm__throughput.avg.pct_of_peak_sustained_elapsed')
-- and `section` is NULL.
CREATE TABLE IF NOT EXISTS ncu_metrics (
    launch_id INTEGER,
    section   VARCHAR,
    name      VARCHAR,
    unit      VARCHAR,  -- base unit, '' when unitless
    value     DOUBLE,   -- NULL when the value is not a number
    text      VARCHAR   -- the value when it is not a number (e.g. 'PolicySpread')
);

-- NVIDIA's guided-analysis findings, one row per message, in the report's order.
CREATE TABLE IF NOT EXISTS ncu_rules (
    launch_id    INTEGER,
    seq          INTEGER,  -- order within the launch
    rule         VARCHAR,  -- rule identifier, e.g. 'SOLBottleneck'
    section      VARCHAR,  -- section identifier, e.g. 'SpeedOfLight'
    type         VARCHAR,  -- 'OPT' | 'WRN' | 'INF' | 'ERR'
    title        VARCHAR,  -- e.g. 'High Memory Throughput' (.ncu-rep only)
    description  VARCHAR,  -- plain text, links written as 'label (url)'
    speedup_type VARCHAR,  -- 'local' | 'global' | NULL
    speedup_pct  DOUBLE    -- NVIDIA's estimated speedup, % of the kernel's duration
);
