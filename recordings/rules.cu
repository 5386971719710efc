// A CUDA program that trips each of Nsight Systems' `nsys analyze` rules on purpose, so that
// tui's findings can be compared row for row with NVIDIA's: asynchronous copies from and to
// pageable memory (cuda_memcpy_async), synchronous copies (cuda_memcpy_sync) and memsets
// (cuda_memset_sync), host-blocking synchronisation calls (cuda_api_sync), host pauses that
// leave the GPU idle (gpu_gaps) and a stretch of sparse tiny kernels (gpu_time_util).
// Build: nvcc -O2 -arch=sm_90 -o rules rules.cu ; run under `nsys profile -t cuda,nvtx`.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

__global__ void busy(float* a, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = a[i];
  for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.001f;
  a[i] = v;
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e)); exit(1); }
}

int main() {
  const size_t n = 16 << 20;  // 16M floats: 64 MB
  const size_t bytes = n * sizeof(float);
  float *d = nullptr, *d2 = nullptr, *pinned = nullptr, *managed = nullptr;
  float* pageable = static_cast<float*>(malloc(bytes));
  memset(pageable, 0, bytes);
  check(cudaMalloc(&d, bytes), "cudaMalloc");
  check(cudaMalloc(&d2, bytes), "cudaMalloc");
  check(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
  check(cudaMallocManaged(&managed, 1 << 20), "cudaMallocManaged");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  cudaEvent_t e;
  check(cudaEventCreate(&e), "event");
  const int threads = 256, blocks = (int)((n + threads - 1) / threads);
  busy<<<blocks, threads, 0, s>>>(d, (int)n, 10);
  check(cudaDeviceSynchronize(), "warm-up");

  for (int step = 0; step < 5; ++step) {
    char label[32];
    snprintf(label, sizeof label, "step %d", step);
    nvtxRangePushA(label);

    nvtxRangePushA("pageable async copies");
    cudaMemcpyAsync(d, pageable, bytes / 4, cudaMemcpyHostToDevice, s);   // pageable -> device
    busy<<<blocks, threads, 0, s>>>(d, (int)n, 200);
    cudaMemcpyAsync(pageable, d, bytes / 4, cudaMemcpyDeviceToHost, s);   // device -> pageable
    cudaMemcpyAsync(d2, pinned, bytes / 4, cudaMemcpyHostToDevice, s);    // pinned: fine
    nvtxRangePop();

    nvtxRangePushA("synchronous copies and sets");
    cudaMemcpy(d2, pinned, bytes / 8, cudaMemcpyHostToDevice);            // sync, pinned
    cudaMemcpy(pageable, d2, bytes / 8, cudaMemcpyDeviceToHost);          // sync, pageable
    cudaMemcpy(d, d2, bytes / 8, cudaMemcpyDeviceToDevice);               // sync, device
    cudaMemset(d2, 0, bytes);                                             // device memory
    cudaMemset(managed, 0, 1 << 20);                                      // managed memory
    cudaMemsetAsync(d2, 1, bytes / 2, s);                                 // async: fine
    nvtxRangePop();

    nvtxRangePushA("host-blocking synchronisation");
    busy<<<blocks, threads, 0, s>>>(d, (int)n, 300);
    cudaStreamSynchronize(s);
    busy<<<blocks, threads, 0, s>>>(d, (int)n, 300);
    cudaEventRecord(e, s);
    cudaEventSynchronize(e);
    busy<<<blocks, threads, 0, s>>>(d, (int)n, 300);
    cudaDeviceSynchronize();
    nvtxRangePop();

    nvtxRangePushA("host work");
    usleep(3000 + 1000 * step);  // the GPU idles: a gap
    nvtxRangePop();

    nvtxRangePushA("sparse tiny kernels");
    for (int k = 0; k < 40; ++k) {  // low utilisation: one small kernel every ~0.25 ms
      busy<<<1, 32, 0, s>>>(d, 32, 100);
      usleep(250);
    }
    cudaStreamSynchronize(s);
    nvtxRangePop();

    nvtxRangePop();
  }
  check(cudaDeviceSynchronize(), "end");
  printf("rules ok\n");
  return 0;
}
