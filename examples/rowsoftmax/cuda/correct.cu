// expect: correct
// Row softmax of x / t with one block per row (one warp for short rows): a first
// pass keeps an online (max, sum of exp) per thread, combined across the block with
// warp shuffles and shared memory; a second pass (mostly L2 hits) writes
// exp(z - max) / sum. Loads are float4 when the row length allows it; t is read
// from device memory in the kernel.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>

// Running max m and sum s of exp2(z - m). Starting from -FLT_MAX rather than
// -inf keeps exp2f(m_old - m_new) finite when a thread saw no element.
struct MaxSum {
  float m, s;
};

__device__ __forceinline__ MaxSum combine(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  return {m, a.s * exp2f(a.m - m) + b.s * exp2f(b.m - m)};
}

__device__ __forceinline__ MaxSum warp_reduce(MaxSum a) {
  for (int offset = 16; offset > 0; offset /= 2)
    a = combine(a, {__shfl_xor_sync(0xffffffffu, a.m, offset), __shfl_xor_sync(0xffffffffu, a.s, offset)});
  return a;
}

// Every warp reduces the per-warp partials, so all threads get the result.
__device__ __forceinline__ MaxSum block_reduce(MaxSum a) {
  __shared__ MaxSum partial[32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  a = warp_reduce(a);
  if (lane == 0) partial[warp] = a;
  __syncthreads();
  return warp_reduce(lane < blockDim.x / 32 ? partial[lane] : MaxSum{-FLT_MAX, 0.0f});
}

// V is float4 (cols counted in float4) or float; blockDim.x is a multiple of 32.
template <typename V>
__global__ void __launch_bounds__(1024)
    softmax_rows(const V* __restrict__ x, const float* __restrict__ temperature, V* __restrict__ y, int64_t cols) {
  constexpr int W = sizeof(V) / sizeof(float);
  const float k = 1.4426950408889634f / *temperature;  // exp(x / t) = exp2(x * k)
  const V* xr = x + blockIdx.x * cols;
  V* yr = y + blockIdx.x * cols;

  MaxSum acc{-FLT_MAX, 0.0f};
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) {
    const V v = xr[i];
    const float* e = reinterpret_cast<const float*>(&v);
    float m = acc.m;
#pragma unroll
    for (int j = 0; j < W; ++j) m = fmaxf(m, e[j] * k);
    float s = acc.s * exp2f(acc.m - m);
#pragma unroll
    for (int j = 0; j < W; ++j) s += exp2f(e[j] * k - m);
    acc = {m, s};
  }
  acc = block_reduce(acc);

  const float inv = static_cast<float>(cols * W) / acc.s;  // softmax times the row length (in floats)
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) {
    V v = xr[i];
    float* e = reinterpret_cast<float*>(&v);
#pragma unroll
    for (int j = 0; j < W; ++j) e[j] = exp2f(e[j] * k - acc.m) * inv;
    __stcs(yr + i, v);  // streaming store: keep L2 for the rows still being read
  }
}

template <typename V>
static int launch(const cudal1_tensor& x, const cudal1_tensor& t, cudal1_tensor& y, int64_t rows, int64_t cols,
                  cudaStream_t stream) {
  // About 4 vectors per thread: one warp for short rows, up to 1024 threads for long ones.
  const int threads = (int)std::min<int64_t>(1024, std::max<int64_t>(32, (cols + 4 * 32 - 1) / (4 * 32) * 32));
  softmax_rows<V><<<(unsigned)rows, threads, 0, stream>>>(static_cast<const V*>(x.data),
                                                          static_cast<const float*>(t.data), static_cast<V*>(y.data),
                                                          cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 1 || n_params < 1 || n_outs < 1) return 1;
  const cudal1_tensor& x = args[0];
  if (x.dtype != CUDAL1_F32 || params[0].dtype != CUDAL1_F32 || outs[0].dtype != CUDAL1_F32) return 2;
  if (x.ndim < 1 || cudal1_numel(&params[0]) != 1) return 2;
  const int64_t cols = x.shape[x.ndim - 1];
  const int64_t rows = cols == 0 ? 0 : cudal1_numel(&x) / cols;
  if (rows == 0) return 0;
  if (rows > 0x7fffffff) return 2;  // one block per row

  // Buffers are 256-byte aligned, so every row is 16-byte aligned when cols % 4 == 0.
  if (cols % 4 == 0) return launch<float4>(x, params[0], outs[0], rows, cols / 4, (cudaStream_t)stream);
  return launch<float>(x, params[0], outs[0], rows, cols, (cudaStream_t)stream);
}
