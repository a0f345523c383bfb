// expect: correct
// Row log-softmax, fused: one block per row loads the row once into registers
// (float4 when the row length allows it), each thread sums exp2 of its elements
// against its own max, one block reduction combines the (max, sum) pairs into the
// row's log-sum-exp L, and each element is written once as x - L. Eager PyTorch's
// log_softmax reads x twice (max and sum, then the output pass): ~6 GiB of traffic
// over a 2 GiB input against 4 GiB here. (The reduction is the same as this
// suite's softmax solution.)
#include <cudal1/abi.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>

namespace {

constexpr float kLog2e = 1.4426950408889634f;  // exp(x) = exp2(x * log2(e))
constexpr float kLn2 = 0.6931471805599453f;     // log(x) = log2(x) * ln(2)

// Running max m (in log2 units) and sum s of exp2(z - m). The sentinel -FLT_MAX
// (never -inf) keeps exp2f(m_old - m_new) finite for a thread that saw no element.
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

// Every thread gets the block's result; blockDim.x is a multiple of 32. One call
// per kernel: the shared partials are not reused.
__device__ __forceinline__ MaxSum block_reduce(MaxSum a) {
  __shared__ MaxSum partial[32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  a = warp_reduce(a);
  if (lane == 0) partial[warp] = a;
  __syncthreads();
  return warp_reduce(lane < (int)(blockDim.x / 32) ? partial[lane] : MaxSum{-FLT_MAX, 0.0f});
}

__device__ __forceinline__ float vmax(float v) { return v; }
__device__ __forceinline__ float vmax(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }

// Adds exp2(x * log2e - m) to s.
__device__ __forceinline__ void add_exp(float x, float m, float& s) { s += exp2f(fmaf(x, kLog2e, -m)); }
__device__ __forceinline__ void add_exp(float4 x, float m, float& s) {
  add_exp(x.x, m, s);
  add_exp(x.y, m, s);
  add_exp(x.z, m, s);
  add_exp(x.w, m, s);
}

__device__ __forceinline__ float sub(float v, float l) { return v - l; }
__device__ __forceinline__ float4 sub(float4 v, float l) { return make_float4(v.x - l, v.y - l, v.z - l, v.w - l); }

// A thread's max of x in log2 units, kept finite (-inf data or no data: -FLT_MAX).
__device__ __forceinline__ float scaled_max(float m) { return fmaxf(m * kLog2e, -FLT_MAX); }

// The natural log-sum-exp of a row from its (max, sum) in log2 units.
__device__ __forceinline__ float log_sum_exp(MaxSum row) { return (row.m + log2f(row.s)) * kLn2; }

// One row per block, held in registers: thread t owns vectors t, t + blockDim.x, ...
// (VPT of them, coalesced for each k). Requires n <= VPT * blockDim.x.
// V is float4 (n counted in float4) or float.
template <typename V, int VPT>
__global__ void __launch_bounds__(1024) log_softmax_rows_regs(const V* __restrict__ x, V* __restrict__ y, int64_t n) {
  const V* xr = x + (int64_t)blockIdx.x * n;
  V* yr = y + (int64_t)blockIdx.x * n;
  V v[VPT];
#pragma unroll
  for (int k = 0; k < VPT; ++k) {
    const int64_t i = threadIdx.x + (int64_t)k * blockDim.x;
    if (i < n) v[k] = __ldcs(xr + i);
  }
  float m = -FLT_MAX;
#pragma unroll
  for (int k = 0; k < VPT; ++k)
    if (threadIdx.x + (int64_t)k * blockDim.x < n) m = fmaxf(m, vmax(v[k]));
  MaxSum own{scaled_max(m), 0.0f};
#pragma unroll
  for (int k = 0; k < VPT; ++k)
    if (threadIdx.x + (int64_t)k * blockDim.x < n) add_exp(v[k], own.m, own.s);
  const float l = log_sum_exp(block_reduce(own));
#pragma unroll
  for (int k = 0; k < VPT; ++k) {
    const int64_t i = threadIdx.x + (int64_t)k * blockDim.x;
    if (i < n) __stcs(yr + i, sub(v[k], l));
  }
}

// Rows too long for registers: an online (max, sum) pass, then a second pass over
// the row (mostly L2 hits) that writes y.
template <typename V>
__global__ void __launch_bounds__(1024) log_softmax_rows_loop(const V* __restrict__ x, V* __restrict__ y, int64_t n) {
  const V* xr = x + (int64_t)blockIdx.x * n;
  V* yr = y + (int64_t)blockIdx.x * n;
  MaxSum acc{-FLT_MAX, 0.0f};
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const V v = xr[i];
    MaxSum add{scaled_max(vmax(v)), 0.0f};
    add_exp(v, add.m, add.s);
    acc = combine(acc, add);
  }
  const float l = log_sum_exp(block_reduce(acc));
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) __stcs(yr + i, sub(xr[i], l));
}

int round_up_warp(int64_t t) { return (int)std::max<int64_t>(32, (t + 31) / 32 * 32); }

// n: vectors per row. 8 vectors a thread (4 for rows of at most 512 vectors) up to
// 1024 threads, then the looping kernel. A 4096-float row: 128 threads, 8 float4 each.
template <typename V>
int launch(const void* x, void* y, int64_t rows, int64_t n, cudaStream_t stream) {
  const V* xv = static_cast<const V*>(x);
  V* yv = static_cast<V*>(y);
  const unsigned grid = (unsigned)rows;
  if (n <= 4 * 128)
    log_softmax_rows_regs<V, 4><<<grid, round_up_warp((n + 3) / 4), 0, stream>>>(xv, yv, n);
  else if (n <= 8 * 1024)
    log_softmax_rows_regs<V, 8><<<grid, round_up_warp((n + 7) / 8), 0, stream>>>(xv, yv, n);
  else
    log_softmax_rows_loop<V><<<grid, 1024, 0, stream>>>(xv, yv, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

}  // namespace

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  (void)params;
  (void)n_params;
  if (n_args < 1 || n_outs < 1) return 1;
  const cudal1_tensor& x = args[0];
  cudal1_tensor& y = outs[0];
  if (x.dtype != CUDAL1_F32 || y.dtype != CUDAL1_F32) return 2;
  if (x.ndim < 1 || y.ndim != x.ndim) return 2;
  for (int d = 0; d < x.ndim; ++d)
    if (y.shape[d] != x.shape[d]) return 2;
  const int64_t cols = x.shape[x.ndim - 1];
  const int64_t rows = cols == 0 ? 0 : cudal1_numel(&x) / cols;
  if (rows == 0) return 0;
  if (rows > 0x7fffffff) return 2;  // one block per row

  const cudaStream_t s = (cudaStream_t)stream;
  // Buffers are 256-byte aligned, so every row is 16-byte aligned when cols % 4 == 0.
  if (cols % 4 == 0) return launch<float4>(x.data, y.data, rows, cols / 4, s);
  return launch<float>(x.data, y.data, rows, cols, s);
}
