// expect: correct
// Fused swish with a per-column scale: each element is read once and written once,
// as float4 when the row length allows it (scalar otherwise), on a 2-D grid whose
// x covers the columns (so each thread loads its scale once) and y strides over rows.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

__device__ __forceinline__ float swish(float v, float s) { return v * (1.0f / (1.0f + expf(-v))) * s; }

__device__ __forceinline__ float4 swish(float4 v, float4 s) {
  return make_float4(swish(v.x, s.x), swish(v.y, s.y), swish(v.z, s.z), swish(v.w, s.w));
}

// V is float4 (cols counted in float4) or float.
template <typename V>
__global__ void swish_kernel(const V* __restrict__ x, const V* __restrict__ scale, V* __restrict__ y,
                             int64_t rows, int64_t cols) {
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < cols; c += (int64_t)gridDim.x * blockDim.x) {
    const V s = scale[c];
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) y[r * cols + c] = swish(x[r * cols + c], s);
  }
}

template <typename V>
static int launch(const cudal1_tensor& x, const cudal1_tensor& scale, cudal1_tensor& y, int64_t rows,
                  int64_t cols, cudaStream_t stream) {
  const int threads = 256;
  const dim3 grid((unsigned)((cols + threads - 1) / threads), (unsigned)(rows < 65535 ? rows : 65535));
  swish_kernel<V><<<grid, threads, 0, stream>>>(static_cast<const V*>(x.data), static_cast<const V*>(scale.data),
                                                 static_cast<V*>(y.data), rows, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 1 || n_params < 1 || n_outs < 1) return 1;
  const cudal1_tensor& x = args[0];
  if (x.dtype != CUDAL1_F32 || params[0].dtype != CUDAL1_F32 || outs[0].dtype != CUDAL1_F32) return 2;
  if (x.ndim < 1) return 2;
  const int64_t cols = x.shape[x.ndim - 1];
  if (cudal1_numel(&params[0]) != cols) return 2;
  const int64_t rows = cols == 0 ? 0 : cudal1_numel(&x) / cols;
  if (rows == 0) return 0;

  // Buffers are 256-byte aligned, so every row is 16-byte aligned when cols % 4 == 0.
  if (cols % 4 == 0) return launch<float4>(x, params[0], outs[0], rows, cols / 4, (cudaStream_t)stream);
  return launch<float>(x, params[0], outs[0], rows, cols, (cudaStream_t)stream);
}
