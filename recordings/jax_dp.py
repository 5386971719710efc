"""Data-parallel training of an MLP over every GPU of one process (a JAX mesh), profiled.

The batch is sharded over a 1-D mesh ('data'), the parameters replicated: XLA inserts the
gradient all-reduce across the devices. A 5 ms host-side data step precedes every step,
so the GPUs idle while the host prepares data.
Usage: python jax_dp.py OUTDIR
Writes OUTDIR/jax_dp/plugins/profile/<run>/{<host>.xplane.pb, perfetto_trace.json.gz}.
Env: JAX_PLATFORMS=cpu with XLA_FLAGS=--xla_force_host_platform_device_count=4 is a dry
run on the CPU; PLAIN=1 runs 50 steps bare (no jax.profiler, nothing written), for an
outside profiler (nsys).
"""
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

SIZES = [1024, 4096, 4096, 1024]
BATCH = 256 * 8
STEPS = 5


def init(key):
    params = []
    for a, b in zip(SIZES[:-1], SIZES[1:], strict=True):
        key, k = jax.random.split(key)
        params.append((jax.random.normal(k, (a, b)) / np.sqrt(a), jnp.zeros((b,))))
    return params


def loss_fn(params, x, y):
    for w, b in params[:-1]:
        x = jax.nn.gelu(x @ w + b)
    w, b = params[-1]
    return jnp.mean((x @ w + b - y) ** 2)


@jax.jit
def step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, params, grads), loss


def main():
    out = sys.argv[1]
    devices = jax.devices()
    print("jax", jax.__version__, devices, flush=True)
    mesh = Mesh(np.array(devices), ("data",))
    replicated, sharded = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    params = jax.device_put(init(jax.random.PRNGKey(0)), replicated)
    rng = np.random.default_rng(0)

    def batch():
        time.sleep(0.005)  # host-side data preparation
        x = rng.standard_normal((BATCH, SIZES[0]), dtype=np.float32)
        y = rng.standard_normal((BATCH, SIZES[-1]), dtype=np.float32)
        return jax.device_put(x, sharded), jax.device_put(y, sharded)

    params, loss = step(params, *batch())  # compile outside the profile
    loss.block_until_ready()
    if os.environ.get("PLAIN"):
        for _ in range(50):
            params, loss = step(params, *batch())
            loss.block_until_ready()
        print("jax_dp ok", float(loss), flush=True)
        return
    with jax.profiler.trace(os.path.join(out, "jax_dp"), create_perfetto_trace=True):
        for i in range(STEPS):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                with jax.profiler.TraceAnnotation("dataloader"):
                    x, y = batch()
                params, loss = step(params, x, y)
                loss.block_until_ready()
    print("jax_dp ok", float(loss), flush=True)


if __name__ == "__main__":
    main()
