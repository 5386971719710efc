"""Record JAX profiles whose kernels are to be tied to HLO ops and source lines.

Each workload is a jitted step, profiled for a few steps after its compile
(jax.profiler.trace with create_perfetto_trace=True: `<host>.xplane.pb`,
`<host>.trace.json.gz`, `perfetto_trace.json.gz`):
  jax_lm           a small Flax (linen) transformer LM's training step: Embed, LayerNorm,
                   causal self-attention, Dense/gelu MLP, softmax cross-entropy (optax),
                   AdamW (optax)
  jax_gemm_reduce  cuBLAS GEMMs (plain, batched, fused epilogue), a cuDNN convolution and
                   reductions (sum, max, logsumexp, variance, cumulative sum)
  jax_scan         a lax.scan over stacked layers (a while loop in the HLO)
Run it twice: with XLA's defaults (command buffers: kernels replayed as CUDA graphs) and
with XLA_FLAGS=--xla_gpu_enable_command_buffer= (each kernel launched alone).
Usage: python gen_jax_hlo.py OUTDIR [workload ...]; writes OUTDIR/<workload>/ (the
profile under plugins/profile/<run>/) and OUTDIR/<workload>.hlo.txt (the compiled step's
HLO, with its schedule).
"""
import os
import sys
import time
import traceback

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax import lax

STEPS = int(os.environ.get("STEPS", "4"))
SMALL = os.environ.get("SMALL") == "1"  # a CPU dry run: tiny sizes


class Block(nn.Module):
    d: int
    heads: int

    @nn.compact
    def __call__(self, x, mask):
        h = nn.LayerNorm()(x)
        h = nn.MultiHeadDotProductAttention(num_heads=self.heads)(h, h, mask=mask)
        x = x + h
        h = nn.LayerNorm()(x)
        h = nn.Dense(4 * self.d)(h)
        h = nn.gelu(h)
        h = nn.Dense(self.d)(h)
        return x + h


class LM(nn.Module):
    vocab: int
    d: int
    layers: int
    heads: int
    seq: int

    @nn.compact
    def __call__(self, tokens):
        x = nn.Embed(self.vocab, self.d)(tokens)
        x = x + self.param("pos", nn.initializers.normal(0.02), (self.seq, self.d))
        mask = nn.make_causal_mask(tokens)
        for _ in range(self.layers):
            x = Block(self.d, self.heads)(x, mask)
        x = nn.LayerNorm()(x)
        return nn.Dense(self.vocab)(x)


def lm():
    vocab, d, layers, heads, seq, batch = ((128, 32, 2, 2, 16, 2) if SMALL
                                           else (2048, 256, 2, 4, 128, 8))
    model = LM(vocab, d, layers, heads, seq)
    rng = np.random.default_rng(0)
    tokens = jnp.asarray(rng.integers(0, vocab, (batch, seq + 1)), jnp.int32)
    params = model.init(jax.random.PRNGKey(0), tokens[:, :-1])
    tx = optax.adamw(1e-3)
    opt_state = tx.init(params)

    def loss_fn(params, tokens):
        logits = model.apply(params, tokens[:, :-1])
        return optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:]).mean()

    @jax.jit
    def step(params, opt_state, tokens):
        loss, grads = jax.value_and_grad(loss_fn)(params, tokens)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    state = [params, opt_state]

    def once():
        state[0], state[1], loss = step(state[0], state[1], tokens)
        return loss
    return step, (params, opt_state, tokens), once


def gemm_reduce():
    n = 64 if SMALL else 2048
    rng = np.random.default_rng(1)

    def arr(*shape):
        return jnp.asarray(rng.standard_normal(shape), jnp.float32)
    a, b, c = arr(n, n), arr(n, n), arr(n, n // 2)
    x = arr(16, n // 8, n // 8)
    img = arr(8, 32, 32, 64) if not SMALL else arr(1, 8, 8, 4)
    kern = arr(3, 3, img.shape[-1], 64)

    @jax.jit
    def step(a, b, c, x, img, kern):
        y = a @ b
        y2 = jnp.tanh(y) @ c
        z = jnp.einsum("bij,bjk->bik", x, x)
        conv = lax.conv_general_dilated(img, kern, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return (jnp.sum(y, axis=0), jnp.max(y2, axis=1), jax.nn.logsumexp(z, axis=-1),
                jnp.var(x, axis=(1, 2)), jnp.cumsum(y2, axis=1)[:, -1],
                jnp.mean(jax.nn.relu(conv), axis=(1, 2)), a + 1e-3 * y)

    args = (a, b, c, x, img, kern)
    state = [a]

    def once():
        out = step(state[0], *args[1:])
        state[0] = out[-1]
        return out[0]
    return step, args, once


def scan():
    d, layers, batch = (16, 3, 4) if SMALL else (512, 6, 256)
    rng = np.random.default_rng(2)
    ws = jnp.asarray(rng.standard_normal((layers, d, d)) / np.sqrt(d), jnp.float32)
    x0 = jnp.asarray(rng.standard_normal((batch, d)), jnp.float32)

    def forward(ws, x):
        def layer(h, w):
            h = jnp.tanh(h @ w)
            return h, jnp.sum(h * h)
        h, norms = lax.scan(layer, x, ws)
        return jnp.mean(h ** 2) + 1e-3 * jnp.sum(norms)

    @jax.jit
    def step(ws, x):
        loss, g = jax.value_and_grad(forward)(ws, x)
        return ws - 1e-2 * g, loss

    state = [ws]

    def once():
        state[0], loss = step(state[0], x0)
        return loss
    return step, (ws, x0), once


WORKLOADS = {"jax_lm": lm, "jax_gemm_reduce": gemm_reduce, "jax_scan": scan}


def record(name, out):
    step, args, once = WORKLOADS[name]()
    with open(os.path.join(out, f"{name}.hlo.txt"), "w") as f:
        f.write(step.lower(*args).compile().as_text())
    for _ in range(2):  # compile and warm up
        jax.block_until_ready(once())
    t0 = time.perf_counter()
    with jax.profiler.trace(os.path.join(out, name), create_perfetto_trace=True):
        for i in range(STEPS):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                loss = once()
            jax.block_until_ready(loss)
    print(name, "ok", f"{time.perf_counter() - t0:.2f}s", flush=True)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    import flax
    import jaxlib
    print("jax", jax.__version__, "jaxlib", jaxlib.__version__, "flax", flax.__version__,
          "optax", optax.__version__, flush=True)
    print("XLA_FLAGS", repr(os.environ.get("XLA_FLAGS")), "devices", jax.devices(), flush=True)
    for name in sys.argv[2:] or list(WORKLOADS):
        try:
            record(name, out)
        except Exception:  # one workload's failure must not cost the others
            traceback.print_exc()
            print(name, "FAILED", flush=True)


if __name__ == "__main__":
    main()
