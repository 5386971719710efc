-- Params: none
-- Needs: none
-- The one schema every loader fills, whatever the source (Kineto JSON or Nsight Systems).
-- Times are integer nanoseconds in the trace's own clock; durations are end_ns - start_ns.

-- key/value facts about the trace: format, path, tool versions, clock, warnings.
CREATE TABLE IF NOT EXISTS trace_meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR
);

-- One row per GPU the trace saw.
CREATE TABLE IF NOT EXISTS devices (
    device             INTEGER PRIMARY KEY,  -- CUDA device index
    name               VARCHAR,              -- e.g. 'NVIDIA H100 80GB HBM3'
    sm_count           INTEGER,
    memory_bytes       BIGINT,
    compute_capability VARCHAR               -- e.g. '9.0'
);

-- Work that ran on a GPU: kernels, copies and sets.
CREATE TABLE IF NOT EXISTS gpu_activities (
    id                   BIGINT,   -- stable row number, ordered by (device, start_ns)
    kind                 VARCHAR,  -- 'kernel' | 'memcpy' | 'memset'
    device               INTEGER,
    stream               BIGINT,
    start_ns             BIGINT,
    end_ns               BIGINT,
    duration_ns          BIGINT,
    name                 VARCHAR,  -- demangled kernel name, or e.g. 'Memcpy HtoD (Pageable -> Device)'
    correlation          BIGINT,   -- links to host_activities.correlation (the launch call)
    grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
    block_x INTEGER, block_y INTEGER, block_z INTEGER,
    registers_per_thread INTEGER,
    shared_memory_bytes  BIGINT,   -- static + dynamic shared memory per block
    bytes                BIGINT,   -- copies and sets: bytes moved or set
    copy_kind            VARCHAR,  -- 'HtoD' | 'DtoH' | 'DtoD' | 'HtoH' | 'PtoP' (copies only)
    src_kind             VARCHAR,  -- 'Pageable' | 'Pinned' | 'Device' | ... when the source says
    dst_kind             VARCHAR,  -- copies: the destination's kind; memsets: the memory set
    src_device           INTEGER,  -- peer copies: the source and destination GPUs (nsys)
    dst_device           INTEGER,
    -- XLA (JAX / TensorFlow) traces: the HLO module and op the work belongs to, and the
    -- framework op (tf_op); NULL for other sources
    hlo_module           VARCHAR,  -- e.g. 'jit_step'
    hlo_op               VARCHAR,  -- e.g. 'fusion_78', 'command_buffer_1'
    tf_op                VARCHAR   -- e.g. 'jit(step)/dot_general' (JAX); 'XlaModule:' for a module-wide command buffer
);

-- Work on the host: CUDA API calls, framework ops, annotations.
CREATE TABLE IF NOT EXISTS host_activities (
    id          BIGINT,
    kind        VARCHAR,  -- 'runtime' (CUDA runtime/driver API) | 'cpu_op' (also XLA ops, compile passes) | 'annotation' (NVTX, user_annotation, JAX TraceAnnotation) | 'python'
    pid         BIGINT,
    tid         BIGINT,
    start_ns    BIGINT,
    end_ns      BIGINT,
    duration_ns BIGINT,
    name        VARCHAR,
    correlation BIGINT,   -- runtime calls: links to gpu_activities.correlation
    depth       INTEGER   -- nesting depth among the same kind on the same thread, 0 = outermost
);

-- Every stretch on a device with no GPU activity on any stream (filled at load by
-- tui/derived/gpu_idle.py; a "gap" in the summary is a row longer than --min-gap-ms).
CREATE TABLE IF NOT EXISTS gpu_idle (
    device      INTEGER,
    start_ns    BIGINT,
    end_ns      BIGINT,
    duration_ns BIGINT,
    before_id   BIGINT,  -- gpu_activities.id of the activity that ended last before the gap
    after_id    BIGINT   -- gpu_activities.id of the activity that ends the gap
);

-- Python frames (Kineto `python_function` events, recorded with with_stack=True): the
-- host_activities rows of kind 'python', with the frame that encloses each on its thread.
CREATE TABLE IF NOT EXISTS python_frames (
    id               BIGINT,   -- host_activities.id
    parent_id        BIGINT,   -- python_frames.id of the enclosing frame; NULL at the top
    pid              BIGINT,
    tid              BIGINT,
    start_ns         BIGINT,
    end_ns           BIGINT,
    depth            INTEGER,  -- 0 = outermost
    name             VARCHAR,  -- as recorded, e.g. 'train.py(42): step'
    file             VARCHAR,  -- 'train.py'; NULL for built-ins
    line             INTEGER,
    func             VARCHAR,
    user_code        BOOLEAN,  -- the user's own code: not a library, the stdlib or a built-in
    python_id        BIGINT,   -- the trace's "Python id" and "Python parent id"
    python_parent_id BIGINT
);

-- Every GPU activity launched by a host call the trace links it to (correlation id): the
-- runtime call, the innermost CPU op and Python frame enclosing it on its thread.
CREATE TABLE IF NOT EXISTS launches (
    gpu_id     BIGINT,  -- gpu_activities.id
    runtime_id BIGINT,  -- host_activities.id of the launching runtime/driver call
    op_id      BIGINT,  -- host_activities.id of the innermost cpu_op, NULL when none
    frame_id   BIGINT   -- python_frames.id of the innermost frame, NULL when none
);

-- Allocations and frees (Kineto `[memory]` events with profile_memory=True; nsys CUDA
-- memory usage events), in time order per device.
CREATE TABLE IF NOT EXISTS memory_events (
    id              BIGINT,
    device_type     VARCHAR,  -- 'gpu' | 'host' | 'other'
    device          INTEGER,  -- CUDA device index; -1 for the host
    ts_ns           BIGINT,
    bytes           BIGINT,   -- > 0 allocated, < 0 freed; NULL when unknown
    total_allocated BIGINT,   -- allocated on the device after this event
    total_reserved  BIGINT,   -- reserved by the caching allocator after it; NULL if unknown
    addr            BIGINT,
    pid             BIGINT,
    tid             BIGINT,
    op_id           BIGINT,   -- host_activities.id of the innermost cpu_op at the event
    frame_id        BIGINT    -- python_frames.id of the innermost Python frame at it
);

-- Names of host threads and their processes, where the trace gives them (Kineto's
-- process_name / thread_name metadata events; nsys' ThreadNames and PROCESSES tables):
-- the timeline names its lanes with them. A thread the trace does not name has no row.
CREATE TABLE IF NOT EXISTS threads (
    pid          BIGINT,   -- as host_activities.pid
    tid          BIGINT,   -- as host_activities.tid
    process_name VARCHAR,  -- e.g. 'python3'
    thread_name  VARCHAR   -- e.g. 'pt_autograd_0'; Kineto writes 'thread 474 (python3)'
);

-- The collectives and point-to-point transfers the framework called (Kineto's
-- record_param_comms ops: PyTorch's c10d), one row a call, with the NCCL kernel it
-- launched where one was; empty for other sources.
CREATE TABLE IF NOT EXISTS collectives (
    tid           BIGINT,   -- the calling thread, as host_activities.tid
    start_ns      BIGINT,   -- the host call
    end_ns        BIGINT,
    collective    VARCHAR,  -- c10d's name: 'allreduce', '_allgather_base', 'send', 'recv', ...
    process_group VARCHAR,  -- c10d's name of the group: '0'
    group_desc    VARCHAR,  -- its description: 'default_pg'; 'NCCL': read from NCCL's NVTX payloads (nsys)
    group_ranks   VARCHAR,  -- the global ranks in it: '[0, 1]'
    group_size    INTEGER,
    peer          INTEGER,  -- send: the destination rank; recv: the source (in the group)
    in_nelems     BIGINT,   -- elements in and out of this rank
    out_nelems    BIGINT,
    dtype         VARCHAR,  -- 'Float', 'BFloat16', ...
    backward      BOOLEAN,  -- called inside autograd's backward (evaluate_function)
    correlation   BIGINT    -- the launch of its NCCL kernel (gpu_activities.correlation)
);

-- The matrix products of PyTorch's GEMM ops (Kineto traces recorded with record_shapes:
-- the "Input Dims" of aten::mm, addmm, bmm, baddbmm, _scaled_mm, _int_mm); empty otherwise.
CREATE TABLE IF NOT EXISTS gemm_shapes (
    pid      BIGINT,   -- the calling thread, as host_activities' pid and tid
    tid      BIGINT,
    start_ns BIGINT,   -- the op on the host (the kernels it launched: its runtime calls')
    end_ns   BIGINT,
    op       VARCHAR,  -- 'aten::mm'
    m        BIGINT,   -- (batch x) [m, k] @ [k, n]
    n        BIGINT,
    k        BIGINT,
    dtype    VARCHAR   -- the first matrix's "Input type": 'float', 'c10::BFloat16', 'signed char'
);

-- The floating-point work of the framework ops whose FLOPs are known (Kineto: the count
-- the profiler wrote with with_flops, or one worked out from the shapes record_shapes
-- wrote, as PyTorch's FLOP counter does: tui/sources, kineto_op_flops.sql), one row an op,
-- none inside another counted op on its thread; empty for other sources.
CREATE TABLE IF NOT EXISTS op_flops (
    pid      BIGINT,   -- the op, as host_activities
    tid      BIGINT,
    start_ns BIGINT,
    end_ns   BIGINT,
    name     VARCHAR,  -- 'aten::mm', 'aten::_scaled_dot_product_cudnn_attention'
    flops    DOUBLE,   -- its floating-point operations, a multiply-add counted as two
    dtype    VARCHAR,  -- its (first matrix) input's type as the trace writes it: 'c10::BFloat16', 'float'
    source   VARCHAR   -- 'args' (the profiler's own count) | 'shapes' (from the inputs' shapes)
);

-- Each GPU kernel's share of the FLOPs of the op that launched it (Kineto: op_flops) or of
-- the HLO op it ran for (XLA: hlo_ops.flops), by tui/derived/flops.py: an op that launched
-- several kernels shares its FLOPs among them by their durations.
CREATE TABLE IF NOT EXISTS kernel_flops (
    gpu_id    BIGINT,   -- gpu_activities.id
    op_id     BIGINT,   -- host_activities.id of the Kineto op; NULL for XLA
    flops     DOUBLE,
    precision VARCHAR,  -- the arithmetic it ran: 'bf16' | 'fp16' | 'tf32' | 'fp32' | 'fp64' | 'fp8' | 'int8'; NULL unknown
    source    VARCHAR   -- as op_flops.source; 'hlo' for XLA
);

-- XLA traces (JAX, TensorFlow): the ops of each compiled HLO program that can run work on
-- a GPU, from the HloProto every XSpace carries (tui/sources/xla_hlo.py); empty for other
-- sources, and for a trace viewer JSON without its run's .xplane.pb.
CREATE TABLE IF NOT EXISTS hlo_ops (
    hlo_module  VARCHAR,    -- the program's module, as gpu_activities.hlo_module: 'jit_step'
    program_id  BIGINT,     -- XLA's id of the program (programs may share a module name)
    hlo_op      VARCHAR,    -- the HLO instruction: 'input_reduce_fusion.29'
    opcode      VARCHAR,    -- 'fusion' | 'custom-call' | 'copy' | 'all-reduce-start' | ...
    category    VARCHAR,    -- a fusion's kind ('kLoop', '__triton_gemm'); a custom call's target ('__cublas$lt$matmul')
    op_name     VARCHAR,    -- the framework op path: 'jit(step)/transpose(jvp(LM))/Dense_0/dot_general'
    source_file VARCHAR,    -- the line of code that made the op: its file ...
    source_line INTEGER,    -- ... and line
    stack       VARCHAR[],  -- the Python frames that made it, outermost first: 'file(line): func'
    user_code   BOOLEAN,    -- source_file is the user's own code, not a library's
    flops       DOUBLE,     -- the FLOPs of the dots it runs, from their shapes; NULL: none
    precision   VARCHAR,    -- their left operand's type: 'bf16', 'fp32', ... (tui/sources/hlo_flops.py)
    -- a collective's (all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute …):
    elements    BIGINT,     -- its result's elements (a tuple's summed)
    dtype       VARCHAR,    -- their XLA type: 'f32', 'bf16'; NULL: mixed
    bytes       BIGINT,     -- its result's bytes
    replica_groups VARCHAR, -- its groups of device ids: '[[0, 1, 2, 3]]'; NULL: every device
    mesh_axes   VARCHAR     -- the mesh axes it runs over ('data'), where the HLO names them
);

-- The order each program's ops run in: its schedule, called computations in place, a
-- while loop's condition and body repeated by its known trip count.
CREATE TABLE IF NOT EXISTS hlo_schedule (
    hlo_module VARCHAR,
    program_id BIGINT,
    position   INTEGER,  -- 0, 1, ...
    hlo_op     VARCHAR
);

-- Each GPU activity of an XLA trace tied to the HLO op it ran for (tui/sources/
-- xla_hlo_match.py): the op the trace names, or, for work run inside a command buffer (a
-- CUDA graph XLA replays: gpu_activities.hlo_op 'command_buffer_1'), the op worked out.
CREATE TABLE IF NOT EXISTS gpu_hlo_ops (
    gpu_id         BIGINT,   -- gpu_activities.id
    program_id     BIGINT,   -- with gpu_activities.hlo_module, the program in hlo_ops
    hlo_op         VARCHAR,  -- the op
    command_buffer VARCHAR,  -- the command buffer it ran in ('command_buffer_1'); NULL: launched alone
    matched        VARCHAR   -- how: 'op' (the trace names it), 'name' (the kernel is named after it),
                             -- 'reuse' (the kernel of an identical op, placed by the order),
                             -- 'order' (a library kernel, copy or set: the one op its place allows),
                             -- 'guess' (placed by the order among several ops that could have run it;
                             -- or named, but programs of the module's name give the op different lines)
);

-- The GPUs' hardware counters, sampled at a fixed rate (nsys --gpu-metrics-devices; XLA's
-- CUPTI PM sampling, gpu_pm_sample_counters): the metrics each device samples that tui
-- reads (tui/core/gpu_metric_names.py: the shares of peak of SMs, tensor cores, DRAM, PCIe
-- and NVLink), under nsys's names (an XLA profile's CUPTI metrics mapped to them,
-- tui/sources/cupti_metrics.py); empty for other sources.
CREATE TABLE IF NOT EXISTS gpu_metric_names (
    device    INTEGER,   -- CUDA device index
    metric_id SMALLINT,  -- the source's id of the metric on that device (gpu_metrics.metric_id)
    name      VARCHAR    -- as nsys writes it: 'SMs Active [Throughput %]',
                         -- 'DRAM Read Bandwidth [Throughput %]'
);

-- One sample of one metric on one device, in time order. A sample tells the counter over
-- the sampling period that ends at ts_ns (XLA's, stamped at its start, moved to its end).
CREATE TABLE IF NOT EXISTS gpu_metrics (
    device    INTEGER,
    metric_id SMALLINT,  -- gpu_metric_names.metric_id
    ts_ns     BIGINT,
    value     REAL       -- a percentage of peak ('[Throughput %]'), as nsys stores it
);

-- CPU samples of host threads (nsys `--sample=process-tree`): when and where each thread
-- was caught running, with its call chain; empty for sources that do not sample.
CREATE TABLE IF NOT EXISTS host_samples (
    ts_ns BIGINT,  -- when the sample was taken
    pid   BIGINT,  -- as host_activities.pid
    tid   BIGINT,  -- as host_activities.tid
    chain BIGINT   -- host_callchains.chain of its call chain; NULL when none was taken
);

-- OS runtime library calls (nsys `-t osrt`: pthread_cond_wait, poll, read, ioctl, ...),
-- those nsys kept (by default the ones of at least 1 µs).
CREATE TABLE IF NOT EXISTS os_calls (
    pid         BIGINT,
    tid         BIGINT,
    start_ns    BIGINT,
    end_ns      BIGINT,
    duration_ns BIGINT,
    name        VARCHAR,  -- the library function, e.g. 'pthread_cond_wait'
    chain       BIGINT    -- host_callchains.chain of the call's backtrace; NULL when none
);

-- The distinct native call chains of host_samples and os_calls, a row a frame: a chain
-- that many samples share is stored once.
CREATE TABLE IF NOT EXISTS host_callchains (
    chain    BIGINT,
    depth    INTEGER,  -- 0 = innermost (where the sample was taken; the OS call itself), 1 = its caller, ...
    function VARCHAR,  -- as the profiler resolved it: 'dgemm_kernel', '_PyEval_EvalFrameDefault', or an address '0x5cdb03'
    module   VARCHAR   -- the file name of its library or executable: 'libc.so.6', 'python3.12'
);

-- Python samples of host threads (nsys `--python-sampling=true`, exported with
-- --include-json=true): when each thread's Python stack was sampled, and its state.
CREATE TABLE IF NOT EXISTS python_samples (
    ts_ns BIGINT,   -- when the sample was taken
    pid   BIGINT,   -- as host_activities.pid
    tid   BIGINT,   -- as host_activities.tid
    state VARCHAR,  -- as nsys names it: 'Running', 'Blocking Wait', 'Uninterruptible'
    stack BIGINT    -- python_stacks.stack of its frames
);

-- The distinct Python stacks of python_samples, a row a frame.
CREATE TABLE IF NOT EXISTS python_stacks (
    stack    BIGINT,
    depth    INTEGER,  -- 0 = innermost (the line running when the sample was taken), 1 = its caller, ...
    function VARCHAR,  -- 'step', '<module>'
    file     VARCHAR,  -- as Python knew it: '/home/me/train.py', '<frozen runpy>'
    line     INTEGER,
    name     VARCHAR,  -- as python_frames.name: 'train.py(42): step'
    user_code BOOLEAN  -- as python_frames.user_code: not a library, the stdlib or frozen
);

-- When each host thread ran on a CPU (nsys `--cpuctxsw=process-tree`: its context switches
-- paired, each switch in with the next switch out): a thread with no interval over a
-- stretch was off every CPU, waiting or asleep.
CREATE TABLE IF NOT EXISTS thread_sched (
    pid      BIGINT,
    tid      BIGINT,
    start_ns BIGINT,   -- switched in
    end_ns   BIGINT,   -- switched out
    cpu      INTEGER   -- the CPU it ran on
);
