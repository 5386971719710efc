"""Record real JAX profiles (XLA's XSpace .xplane.pb and trace-viewer JSON) of small workloads.

Each workload has a known character, so that an explorer's findings can be checked:
  jax_train        jitted MLP training, fp32, a 3 ms host-side data step (numpy + sleep +
                   device_put) before every step: the GPU idles while the host prepares data
  jax_train_tuned  the same model in bf16 with the next batch prepared while the step runs
                   (the "after" of a before/after pair with jax_train)
  jax_eager        un-jitted small element-wise ops: one kernel per op, launch-bound
  jax_streams      host-to-device copies of the next batch while a jitted step computes
Usage: python gen_jax.py OUTDIR [workload ...]
Each workload writes OUTDIR/<workload>/plugins/profile/<run>/{<host>.xplane.pb,
perfetto_trace.json.gz} (jax.profiler.trace with create_perfetto_trace=True).
"""
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np


def mlp_params(key, sizes, dtype):
    params = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        key, k = jax.random.split(key)
        params.append((jax.random.normal(k, (a, b), dtype) / np.sqrt(a), jnp.zeros((b,), dtype)))
    return params


def loss_fn(params, x, y):
    for w, b in params[:-1]:
        x = jax.nn.gelu(x @ w + b)
    w, b = params[-1]
    return jnp.mean(((x @ w + b) - y).astype(jnp.float32) ** 2)


def make_step(lr):
    @jax.jit
    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        params = jax.tree_util.tree_map(lambda p, g: p - lr * g.astype(p.dtype), params, grads)
        return params, loss
    return step


SIZES = [1024, 4096, 4096, 4096, 1024]


def host_batch(rng, dtype):
    time.sleep(0.003)  # CPU-side batch preparation
    x = rng.standard_normal((512, SIZES[0])).astype(np.float32)
    y = rng.standard_normal((512, SIZES[-1])).astype(np.float32)
    return x.astype(dtype), y.astype(dtype)


def train(steps, dtype, prefetch):
    params = mlp_params(jax.random.PRNGKey(0), SIZES, dtype)
    step = make_step(1e-3)
    rng = np.random.default_rng(0)
    warm = host_batch(rng, dtype)
    params, loss = step(params, *map(jnp.asarray, warm))
    loss.block_until_ready()

    def run():
        nonlocal params
        nxt = [jax.device_put(a) for a in host_batch(rng, dtype)] if prefetch else None
        for i in range(steps):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                if prefetch:
                    x, y = nxt
                    params, loss = step(params, x, y)
                    with jax.profiler.TraceAnnotation("dataloader"):
                        nxt = [jax.device_put(a) for a in host_batch(rng, dtype)]
                else:
                    with jax.profiler.TraceAnnotation("dataloader"):
                        x, y = (jax.device_put(a) for a in host_batch(rng, dtype))
                    params, loss = step(params, x, y)
                    loss.block_until_ready()  # the loss is logged every step
        loss.block_until_ready()
    return run


def eager(steps):
    x = jnp.ones((256, 256), jnp.float32)
    y = jnp.ones((256, 256), jnp.float32)
    for _ in range(3):
        (x * y + 1.0).block_until_ready()

    def run():
        nonlocal x
        for i in range(steps):
            with jax.profiler.StepTraceAnnotation("eager", step_num=i):
                for _ in range(20):
                    x = jnp.tanh(x * 0.5 + y) - 0.1
                x.block_until_ready()
    return run


def streams(steps):
    params = mlp_params(jax.random.PRNGKey(1), SIZES, jnp.bfloat16)
    step = make_step(1e-3)
    rng = np.random.default_rng(1)
    big = [rng.standard_normal((4096, 4096)).astype(np.float32) for _ in range(2)]
    batch = [jnp.asarray(a) for a in host_batch(rng, jnp.bfloat16)]
    step(params, *batch)[1].block_until_ready()

    def run():
        nonlocal params
        for i in range(steps):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                params, loss = step(params, *batch)
                staged = [jax.device_put(a) for a in big]  # copies while the step computes
                host = np.asarray(staged[0][:64])  # a device-to-host copy
                del host
        loss.block_until_ready()
    return run


WORKLOADS = {
    "jax_train": lambda: train(8, np.float32, prefetch=False),
    "jax_train_tuned": lambda: train(8, jnp.bfloat16, prefetch=True),
    "jax_eager": lambda: eager(10),
    "jax_streams": lambda: streams(6),
}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or list(WORKLOADS)
    print("jax", jax.__version__, jax.devices(), flush=True)
    for name in names:
        run = WORKLOADS[name]()
        logdir = os.path.join(out, name)
        with jax.profiler.trace(logdir, create_perfetto_trace=True):
            run()
        print(name, "ok", flush=True)


if __name__ == "__main__":
    main()
