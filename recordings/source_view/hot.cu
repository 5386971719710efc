// Kernels with known hot lines for Nsight Compute's source view (build with -lineinfo).
#include <cstdio>
#include <cuda_runtime.h>

// A strided gather: the load on line 9 misses; the multiply on line 10 waits for it.
__global__ void strided_load(const float* in, float* out, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = in[(long long)i * stride % n];
    out[i] = v * 2.0f;
}

// An index load (coalesced), then a gather through it, then its use: three lines, each
// waiting on the load of the line before.
__global__ void gather(const int* index, const float* table, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int j = index[i];
    float v = table[j];
    out[i] = v + 1.0f;
}

// Every lane of a warp reads one shared-memory bank: 32-way bank conflicts on line 31.
__global__ void shared_walk(float* out, int iters) {
    __shared__ float tile[1024];
    int t = threadIdx.x;
    for (int k = t; k < 1024; k += blockDim.x) tile[k] = (float)k;
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < iters; k++) {
        float v = tile[(t * 32 + k) % 1024];
        acc += v;
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}

// One dependent FMA after another, one warp per scheduler: fixed-latency waits on line 42.
__global__ void fma_chain(float* out, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = i * 1e-6f, b = 1.0001f, c = 0.9999f;
    for (int k = 0; k < iters; k++) {
        a = fmaf(a, b, c);
    }
    out[i] = a;
}

// Even and odd lanes take different branches: each half of the warp idles in turn.
__global__ void divergent(float* x, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (i % 2 == 0) {
        for (int k = 0; k < iters; k++) v = sinf(v) * 1.0001f + 0.5f;
    } else {
        for (int k = 0; k < iters; k++) v = cosf(v) * 0.9999f - 0.5f;
    }
    x[i] = v;
}

void launch_sass_only(float* x, int n);  // sass_only.cu, built without -lineinfo

int main() {
    const int n = 1 << 24, m = 1 << 22;
    float *x, *y, *table;
    int* index;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMalloc(&table, n * sizeof(float));
    cudaMalloc(&index, m * sizeof(int));
    cudaMemset(x, 0, n * sizeof(float));
    cudaMemset(table, 0, n * sizeof(float));
    int* host = (int*)malloc(m * sizeof(int));
    unsigned s = 12345u;
    for (int k = 0; k < m; k++) { s = s * 1664525u + 1013904223u; host[k] = (int)(s % n); }
    cudaMemcpy(index, host, m * sizeof(int), cudaMemcpyHostToDevice);

    strided_load<<<n / 256, 256>>>(x, y, n, 33);
    gather<<<m / 256, 256>>>(index, table, y, m);
    shared_walk<<<132 * 4, 256>>>(y, 2048);
    fma_chain<<<132, 128>>>(y, 1 << 17);
    divergent<<<(1 << 20) / 256, 256>>>(x, 1 << 20, 64);
    launch_sass_only(x, n);
    cudaDeviceSynchronize();
    printf("done: %s\n", cudaGetErrorString(cudaGetLastError()));
    free(host);
    return 0;
}
