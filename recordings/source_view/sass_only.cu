// Built without -lineinfo: Nsight Compute has SASS for this kernel but no source lines.
#include <cuda_runtime.h>

__global__ void sass_only(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int k = 0; k < 32; k++) v = v * 0.999f + 0.001f;
    x[i] = v;
}

void launch_sass_only(float* x, int n) { sass_only<<<n / 256, 256>>>(x, n); }
