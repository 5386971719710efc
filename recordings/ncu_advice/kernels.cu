// Kernels that each show one condition Nsight Compute's advice must recognise (build with
// -lineinfo). Built with -DAFTER, some kernels take their optimised form under the same
// name, so the two reports form before/after pairs of one change each.
#include <cstdio>
#include <cuda_runtime.h>

#define TILE 32
#ifdef AFTER
#define PITCH (TILE + 1)  // an odd pitch: a column of the tile spans all 32 banks
#else
#define PITCH (TILE + 2)  // an even pitch: lanes t and t+16 share a bank (2-way conflicts)
#endif

// A shared-memory tiled matrix multiply, one output per thread; the warp runs down a
// column of the A tile, so its reads of As conflict 2-way.
__global__ void tiled_gemm(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][PITCH];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    float sum = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[(row0 + ty) * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col0 + tx];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            sum += As[tx][k] * Bs[k][ty];
        __syncthreads();
    }
    C[(row0 + tx) * n + col0 + ty] = sum;
}

// The same product with register tiling: a 64x64 block tile, 4x4 outputs per thread, the
// A tile stored transposed so that each thread reads 4 values in one 16-byte shared load.
#define BM 64
#define BN 64
#define BK 8
__global__ void __launch_bounds__(256) register_tiled_gemm(const float* A, const float* B,
                                                           float* C, int n) {
    __shared__ __align__(16) float As[BK][BM + 4];
    __shared__ __align__(16) float Bs[BK][BN];
    int tid = threadIdx.x, tr = tid / 16, tc = tid % 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4] = {};
    for (int t = 0; t < n; t += BK) {
        for (int i = tid; i < BM * BK; i += 256) {
            int m = i / BK, k = i % BK;
            As[k][m] = A[(row0 + m) * n + t + k];
        }
        for (int i = tid; i < BK * BN; i += 256) {
            int k = i / BN, c = i % BN;
            Bs[k][c] = B[(t + k) * n + col0 + c];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float4 a = *reinterpret_cast<const float4*>(&As[k][tr * 4]);
            float4 b = *reinterpret_cast<const float4*>(&Bs[k][tc * 4]);
            float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) C[(row0 + tr * 4 + i) * n + col0 + tc * 4 + j] = acc[i][j];
}

// A per-thread array indexed by a value known only at run time: it lives in local memory.
__global__ void local_array(const float* in, float* out, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    int j = (int)(x * 7.0f) + i;
#ifdef AFTER
    // The 16 slots unrolled as named registers: every index is known at compile time.
    float buf[16];
#pragma unroll
    for (int k = 0; k < 16; k++) buf[k] = x + k;
    float acc = 0.0f;
    for (int k = 0; k < iters; k++) {
        int s = (j + k * 5) & 15;
        float v = 0.0f;
#pragma unroll
        for (int q = 0; q < 16; q++) v = (q == s) ? buf[q] : v;
        acc += v;
#pragma unroll
        for (int q = 0; q < 16; q++) buf[q] = (q == ((j + k) & 15)) ? acc * 0.5f : buf[q];
    }
#else
    float buf[16];
    for (int k = 0; k < 16; k++) buf[k] = x + k;
    float acc = 0.0f;
    for (int k = 0; k < iters; k++) {
        acc += buf[(j + k * 5) & 15];
        buf[(j + k) & 15] = acc * 0.5f;
    }
#endif
    out[i] = acc;
}

// More live values than the register cap allows (__launch_bounds__(256, 8): 32 registers
// a thread): the compiler spills them to local memory.
#ifdef AFTER
__global__ void __launch_bounds__(256) spill(const float* in, float* out, int n, int iters) {
#else
__global__ void __launch_bounds__(256, 8) spill(const float* in, float* out, int n, int iters) {
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float r[48];
#pragma unroll
    for (int k = 0; k < 48; k++) r[k] = in[(i + k * 4099) % n];
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < 48; k++) r[k] = fmaf(r[k], r[(k + 7) % 48], 1.0f);
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 48; k++) s += r[k];
    out[i] = s;
}

// Short steps between block-wide barriers, and the first warp does extra work before each:
// the other 31 warps wait at __syncthreads().
__global__ void barrier_heavy(float* out, int iters) {
    __shared__ float s[1024];
    int t = threadIdx.x;
    float v = t * 0.001f;
    for (int it = 0; it < iters; it++) {
        if (t < 32) {
            for (int k = 0; k < 16; k++) v = fmaf(v, 1.0001f, 0.5f);
        }
        s[t] = v;
        __syncthreads();
        v += s[(t + 1) & 1023];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = v;
}

// A histogram of 8 bins in global memory: every thread adds into the same few addresses.
__global__ void atomic_hist(const int* in, int* bins, int n) {
#ifdef AFTER
    __shared__ int local[8];  // privatised per block, merged once
    if (threadIdx.x < 8) local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[(in[i] + i) & 7], 1);
    __syncthreads();
    if (threadIdx.x < 8) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
#else
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[(in[i] + i) & 7], 1);
#endif
}

// Each lane runs a loop of its own length: the warp runs as long as its longest lane while
// the others idle.
__global__ void divergent_loop(float* x, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    int lane = threadIdx.x & 31;
    for (int k = 0; k < (lane + 1) * iters; k++) v = fmaf(v, 0.999f, 0.25f);
    x[i] = v;
}

// Reads through the texture path (tex1Dfetch on a texture object), a scattered 8-tap gather.
__global__ void texture_read(cudaTextureObject_t tex, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int k = 0; k < 8; k++) s += tex1Dfetch<float>(tex, (i * 37 + k * 1021) % n);
    out[i] = s;
}

// Many values live at once (a 64-tap gather kept in registers): about 100 registers a
// thread leave room for few warps, too few to hide the loads' latency.
__global__ void __launch_bounds__(128, 1) register_heavy(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float r[64];
#pragma unroll
    for (int k = 0; k < 64; k++) r[k] = in[(i * 97 + k * 7919) % n];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 64; k++) s = fmaf(s, r[k], r[63 - k]);
    out[i] = s;
}

int main() {
    const int n = 1024, m = 1 << 22, h = 1 << 24;
    float *a, *b, *c, *x, *y;
    int *ints, *bins;
    cudaMalloc(&a, n * n * sizeof(float));
    cudaMalloc(&b, n * n * sizeof(float));
    cudaMalloc(&c, n * n * sizeof(float));
    cudaMalloc(&x, m * sizeof(float));
    cudaMalloc(&y, m * sizeof(float));
    cudaMalloc(&ints, h * sizeof(int));
    cudaMalloc(&bins, 8 * sizeof(int));
    cudaMemset(a, 0, n * n * sizeof(float));
    cudaMemset(b, 0, n * n * sizeof(float));
    cudaMemset(x, 0, m * sizeof(float));
    cudaMemset(ints, 0, h * sizeof(int));
    cudaMemset(bins, 0, 8 * sizeof(int));

    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = x;
    res.res.linear.desc = cudaCreateChannelDesc<float>();
    res.res.linear.sizeInBytes = m * sizeof(float);
    cudaTextureDesc td = {};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex = 0;
    cudaCreateTextureObject(&tex, &res, &td, nullptr);

    tiled_gemm<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(a, b, c, n);
    register_tiled_gemm<<<dim3(n / BN, n / BM), 256>>>(a, b, c, n);
    local_array<<<m / 256, 256>>>(x, y, m, 64);
    spill<<<m / 256, 256>>>(x, y, m, 16);
    barrier_heavy<<<132 * 2, 1024>>>(y, 256);
    atomic_hist<<<132 * 4, 256>>>(ints, bins, h);
    divergent_loop<<<m / 256 / 4, 256>>>(x, m / 4, 8);
    texture_read<<<m / 256, 256>>>(tex, y, m);
    register_heavy<<<m / 128 / 4, 128>>>(x, y, m);
    cudaError_t err = cudaDeviceSynchronize();
    printf("done: %s\n", cudaGetErrorString(err));
    cudaDestroyTextureObject(tex);
    return err == cudaSuccess ? 0 : 1;
}
