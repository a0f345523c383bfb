// expect: correct
// GroupNorm (8 groups, eps 1e-5, affine) in three kernels. (1) Each (sample,
// group) slab, here 16 channels x 256 x 256 = 1M contiguous floats, is split
// into 64 chunks; one block per chunk streams it as float4 and writes the
// chunk's sum and sum of squares (float per thread over 16 vectors, then
// double). (2) One thread per slab adds its 64 partials in double and keeps the
// mean and 1/sqrt(var + eps) (the biased variance, as nn.GroupNorm). (3) One
// pass over x folds the statistics and the channel's affine parameters into a
// single multiply-add, y = x * scale + shift, with streaming loads and stores.
// x is read twice and y written once (6.4 GB); eager GroupNorm takes about 2.6 ms
// for the same tensor.
//
// The group count and eps are the task's constructor arguments, which do not
// reach a native candidate: they are the task's constants here.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

namespace {

constexpr int kGroups = 8;
constexpr float kEps = 1e-5f;
constexpr int kThreads = 256;
constexpr int kChunks = 64;       // partial sums per slab
constexpr int kMaxSlabs = 8192;   // batch * groups
constexpr int kNormVectors = 8;   // float4s per thread in the normalizing pass

__device__ double g_partial_sum[kMaxSlabs * kChunks];
__device__ double g_partial_sq[kMaxSlabs * kChunks];
__device__ float2 g_stats[kMaxSlabs];  // (mean, rstd) per slab

__device__ __forceinline__ double block_sum(double v) {
  __shared__ double part[kThreads / 32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (threadIdx.x & 31) < kThreads / 32 ? part[threadIdx.x & 31] : 0.0;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();  // part[] may be written again by the next call
  return v;
}

// Block (chunk, slab): the sum and sum of squares of its chunk_len elements
// (the last chunk may be shorter). vec: slab_len and chunk_len are multiples of 4.
__global__ void __launch_bounds__(kThreads)
    partial_moments(const float* __restrict__ x, int64_t slab_len, int64_t chunk_len, bool vec) {
  const int slab = blockIdx.y, chunk = blockIdx.x;
  const int64_t begin = chunk * chunk_len;
  const int64_t end = begin + chunk_len < slab_len ? begin + chunk_len : slab_len;
  const float* base = x + slab * slab_len;
  double sum = 0, sq = 0;
  if (begin < end) {
    float s = 0, q = 0;
    if (vec) {
      const float4* v = reinterpret_cast<const float4*>(base + begin);
      const int64_t n4 = (end - begin) / 4;
      for (int64_t i = threadIdx.x; i < n4; i += kThreads) {
        const float4 a = __ldcs(v + i);
        s += (a.x + a.y) + (a.z + a.w);
        q += (a.x * a.x + a.y * a.y) + (a.z * a.z + a.w * a.w);
      }
    } else {
      for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) {
        const float a = base[i];
        s += a;
        q += a * a;
      }
    }
    sum = s;
    sq = q;
  }
  sum = block_sum(sum);
  sq = block_sum(sq);
  if (threadIdx.x == 0) {
    g_partial_sum[slab * kChunks + chunk] = sum;
    g_partial_sq[slab * kChunks + chunk] = sq;
  }
}

__global__ void finalize_moments(int slabs, int64_t slab_len) {
  const int slab = blockIdx.x * blockDim.x + threadIdx.x;
  if (slab >= slabs) return;
  double sum = 0, sq = 0;
  for (int c = 0; c < kChunks; ++c) {
    sum += g_partial_sum[slab * kChunks + c];
    sq += g_partial_sq[slab * kChunks + c];
  }
  const double mean = sum / (double)slab_len;
  double var = sq / (double)slab_len - mean * mean;
  if (var < 0) var = 0;
  g_stats[slab] = make_float2((float)mean, (float)(1.0 / sqrt(var + (double)kEps)));
}

// Block (part, plane): plane = sample * channels + channel, hw elements each.
__global__ void __launch_bounds__(kThreads)
    normalize(const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
              float* __restrict__ y, int channels, int per_group, int64_t hw, bool vec) {
  const int plane = blockIdx.y;
  const int c = plane % channels, sample = plane / channels;
  const float2 st = g_stats[sample * kGroups + c / per_group];
  const float scale = st.y * __ldg(weight + c);
  const float shift = __ldg(bias + c) - st.x * scale;
  const float* xp = x + plane * hw;
  float* yp = y + plane * hw;
  if (vec) {
    const float4* xv = reinterpret_cast<const float4*>(xp);
    float4* yv = reinterpret_cast<float4*>(yp);
    const int64_t n4 = hw / 4;
    const int64_t first = (int64_t)blockIdx.x * kThreads * kNormVectors + threadIdx.x;
    float4 a[kNormVectors];
#pragma unroll
    for (int u = 0; u < kNormVectors; ++u) {
      const int64_t i = first + u * kThreads;
      if (i < n4) a[u] = __ldcs(xv + i);
    }
#pragma unroll
    for (int u = 0; u < kNormVectors; ++u) {
      const int64_t i = first + u * kThreads;
      if (i < n4)
        __stcs(yv + i, make_float4(fmaf(a[u].x, scale, shift), fmaf(a[u].y, scale, shift),
                                   fmaf(a[u].z, scale, shift), fmaf(a[u].w, scale, shift)));
    }
  } else {
    for (int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x; i < hw; i += (int64_t)gridDim.x * kThreads)
      yp[i] = fmaf(xp[i], scale, shift);
  }
}

}  // namespace

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 1 || n_params < 2 || n_outs < 1) return 1;
  const cudal1_tensor& x = args[0];
  const cudal1_tensor &w = params[0], &b = params[1];  // norm.weight, norm.bias
  cudal1_tensor& y = outs[0];
  if (x.dtype != CUDAL1_F32 || w.dtype != CUDAL1_F32 || b.dtype != CUDAL1_F32 || y.dtype != CUDAL1_F32) return 2;
  if (x.ndim < 2 || cudal1_numel(&y) != cudal1_numel(&x)) return 2;
  const int64_t batch = x.shape[0], channels = x.shape[1];
  if (channels % kGroups != 0 || cudal1_numel(&w) != channels || cudal1_numel(&b) != channels) return 2;
  int64_t hw = 1;
  for (int i = 2; i < x.ndim; ++i) hw *= x.shape[i];
  const int64_t slabs = batch * kGroups, per_group = channels / kGroups, slab_len = per_group * hw;
  if (slabs == 0 || hw == 0) return 0;
  if (slabs > kMaxSlabs || batch * channels > 65535) return 3;  // the grids' y dimension, the scratch
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const float* xp = static_cast<const float*>(x.data);

  // Chunks of whole float4s where the layout allows (every plane then starts 16-byte aligned).
  const bool vec = hw % 4 == 0;
  int64_t chunk_len = (slab_len + kChunks - 1) / kChunks;
  if (vec) chunk_len = (chunk_len + 3) / 4 * 4;
  partial_moments<<<dim3(kChunks, (unsigned)slabs), kThreads, 0, s>>>(xp, slab_len, chunk_len, vec);
  finalize_moments<<<(unsigned)((slabs + 127) / 128), 128, 0, s>>>((int)slabs, slab_len);
  const int64_t per_block = vec ? (int64_t)kThreads * kNormVectors * 4 : (int64_t)kThreads * 16;
  const unsigned parts = (unsigned)((hw + per_block - 1) / per_block);
  normalize<<<dim3(parts, (unsigned)(batch * channels)), kThreads, 0, s>>>(
      xp, static_cast<const float*>(w.data), static_cast<const float*>(b.data), static_cast<float*>(y.data),
      (int)channels, (int)per_group, hw, vec);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
