// expect: correct
// Cross-entropy (mean over the batch) in one kernel: one warp per row reads the
// logits once (float4 when the row length allows it; up to 8 vectors per lane in
// flight), keeps a running (max, sum of exp) and picks the target logit from the
// registers it already holds; each warp adds its rows' losses in double, each block
// sums its warps, and the last block to finish adds the block sums in a fixed order
// (deterministic) and writes the mean. Eager PyTorch writes the whole 2 GiB
// log-softmax and reads it back for nll_loss (whose 2-D reduction is one small
// block): ~4 GiB of traffic and a serial gather against 2 GiB here.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kVectorsPerLane = 8;  // per chunk of a row: 256 vectors a warp
constexpr int kMaxBlocks = 4096;
constexpr int64_t kIgnoreIndex = -100;  // F.cross_entropy's default ignore_index
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

// Per block: (sum of row losses, number of rows counted); the count of finished
// blocks. The last block reads the sums and sets the count back to 0, so every
// launch starts from 0.
__device__ double2 g_block_sums[kMaxBlocks];
__device__ unsigned int g_blocks_done;

// Running max m (in log2 units) and sum s of exp2(z - m). The sentinel -FLT_MAX
// (never -inf) keeps exp2f(m_old - m_new) finite for a lane that saw no element.
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

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ __forceinline__ double2 warp_sum(double2 v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v.x += __shfl_xor_sync(0xffffffffu, v.x, offset);
    v.y += __shfl_xor_sync(0xffffffffu, v.y, offset);
  }
  return v;
}

__device__ __forceinline__ float vmax(float v) { return v; }
__device__ __forceinline__ float vmax(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }

__device__ __forceinline__ float exp_sum(float x, float m) { return exp2f(fmaf(x, kLog2e, -m)); }
__device__ __forceinline__ float exp_sum(float4 x, float m) {
  return exp_sum(x.x, m) + exp_sum(x.y, m) + exp_sum(x.z, m) + exp_sum(x.w, m);
}

// The logit at offset d of a vector if 0 <= d < the vector's width, else 0. Selects,
// not an index into the float4 (which would put it in local memory).
__device__ __forceinline__ float pick(float v, int d) { return d == 0 ? v : 0.0f; }
__device__ __forceinline__ float pick(float4 v, int d) {
  return (d == 0 ? v.x : 0.0f) + (d == 1 ? v.y : 0.0f) + (d == 2 ? v.z : 0.0f) + (d == 3 ? v.w : 0.0f);
}

// A lane's max in log2 units, kept finite (-inf data or no data: -FLT_MAX).
__device__ __forceinline__ float scaled_max(float m) { return fmaxf(m * kLog2e, -FLT_MAX); }

// loss_i = logsumexp(x_i) - x_i[t_i] over rows with t_i != ignore_index (a target
// out of range gives NaN), mean over those rows. Warps stride over rows; a row is
// read in chunks of 32 * kVectorsPerLane vectors, each chunk's loads issued together.
// V is float4 (n counted in float4) or float; classes is the row length in floats.
template <typename V>
__global__ void __launch_bounds__(kThreads)
    cross_entropy_rows(const V* __restrict__ x, const int64_t* __restrict__ target, int64_t rows, int64_t n,
                       int64_t classes, float* __restrict__ out) {
  constexpr int W = sizeof(V) / sizeof(float);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  double loss = 0.0, counted = 0.0;
  for (int64_t r = (int64_t)blockIdx.x * kWarps + warp; r < rows; r += (int64_t)gridDim.x * kWarps) {
    const int64_t t = __ldg(target + r);
    const V* xr = x + r * n;
    MaxSum acc{-FLT_MAX, 0.0f};
    float xt = 0.0f;
    for (int64_t c0 = 0; c0 < n; c0 += 32 * kVectorsPerLane) {
      // The target's offset in floats from this lane's first vector of the chunk;
      // outside the chunk, a value that no vector's offset (t_lane - 32 k W) matches.
      constexpr int kChunkFloats = 32 * kVectorsPerLane * W;
      const int64_t offset = t - (c0 + lane) * W;
      const int t_lane = offset >= 0 && offset < kChunkFloats ? (int)offset : -kChunkFloats - 1;
      V v[kVectorsPerLane];
#pragma unroll
      for (int k = 0; k < kVectorsPerLane; ++k) {
        const int64_t i = c0 + lane + 32 * k;
        if (i < n) v[k] = __ldcs(xr + i);
      }
      float m = -FLT_MAX;
#pragma unroll
      for (int k = 0; k < kVectorsPerLane; ++k)
        if (c0 + lane + 32 * k < n) m = fmaxf(m, vmax(v[k]));
      MaxSum chunk{scaled_max(m), 0.0f};
#pragma unroll
      for (int k = 0; k < kVectorsPerLane; ++k) {
        if (c0 + lane + 32 * k < n) {
          chunk.s += exp_sum(v[k], chunk.m);
          xt += pick(v[k], t_lane - 32 * k * W);
        }
      }
      acc = combine(acc, chunk);
    }
    acc = warp_reduce(acc);
    xt = warp_sum(xt);  // exact: at most one lane holds a nonzero
    if (t != kIgnoreIndex) {
      // logsumexp = m ln 2 + ln s (m in log2 units, s = sum of exp2(z - m)).
      const float lse = fmaf(acc.m, kLn2, logf(acc.s));
      loss += (t >= 0 && t < classes) ? (double)(lse - xt) : (double)NAN;
      counted += 1.0;
    }
  }

  // Every lane holds its warp's figures; lane 0 of each warp hands them on.
  __shared__ double2 partial[kWarps];
  __shared__ bool is_last;
  if (lane == 0) partial[warp] = make_double2(loss, counted);
  __syncthreads();
  if (threadIdx.x == 0) {
    double2 block_total = partial[0];
    for (int w = 1; w < kWarps; ++w) block_total = make_double2(block_total.x + partial[w].x, block_total.y + partial[w].y);
    g_block_sums[blockIdx.x] = block_total;
    __threadfence();  // the sums are visible before the count says so
    is_last = atomicAdd(&g_blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  double2 total = make_double2(0.0, 0.0);
  for (int b = threadIdx.x; b < (int)gridDim.x; b += kThreads) {
    const double2 s = __ldcg(&g_block_sums[b]);
    total.x += s.x;
    total.y += s.y;
  }
  total = warp_sum(total);
  if (lane == 0) partial[warp] = total;  // partial's first use ended at the last __syncthreads()
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kWarps; ++w) total = make_double2(total.x + partial[w].x, total.y + partial[w].y);
    *out = (float)(total.x / total.y);  // no row counted: 0 / 0 = NaN, as PyTorch
    g_blocks_done = 0;
  }
}

template <typename V>
int launch(const void* x, const void* target, int64_t rows, int64_t n, int64_t classes, void* out,
           cudaStream_t stream) {
  int device = 0, sms = 0, per_sm = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 1;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) return 1;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, cross_entropy_rows<V>, kThreads, 0) != cudaSuccess)
    return 1;
  // One resident wave, but no more warps than rows.
  const int blocks = (int)std::max<int64_t>(
      1, std::min<int64_t>({(int64_t)sms * std::max(per_sm, 1), (rows + kWarps - 1) / kWarps, (int64_t)kMaxBlocks}));
  cross_entropy_rows<V><<<blocks, kThreads, 0, stream>>>(static_cast<const V*>(x),
                                                         static_cast<const int64_t*>(target), rows, n, classes,
                                                         static_cast<float*>(out));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

}  // namespace

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  (void)params;
  (void)n_params;
  if (n_args < 2 || n_outs < 1) return 1;
  const cudal1_tensor& x = args[0];
  const cudal1_tensor& target = args[1];
  cudal1_tensor& out = outs[0];
  if (x.dtype != CUDAL1_F32 || target.dtype != CUDAL1_I64 || out.dtype != CUDAL1_F32) return 2;
  // (batch, classes) logits, (batch,) class indices.
  if (x.ndim != 2 || target.ndim != 1 || target.shape[0] != x.shape[0] || cudal1_numel(&out) != 1) return 2;
  const int64_t rows = x.shape[0], classes = x.shape[1];
  if (classes == 0) return 2;

  const cudaStream_t s = (cudaStream_t)stream;
  // Buffers are 256-byte aligned, so every row is 16-byte aligned when classes % 4 == 0.
  if (classes % 4 == 0) return launch<float4>(x.data, target.data, rows, classes / 4, classes, out.data, s);
  return launch<float>(x.data, target.data, rows, classes, classes, out.data, s);
}
