// expect: correct
// Flash-decoding for GQA decode attention (4 query heads per kv head, head dim
// 128). Pass 1: one block per (kv chunk of 512 keys, kv head, sequence); each
// half-warp takes 4 consecutive keys at a time, one 16-byte load of K and of V
// per key and lane (lane l owns dims 8l..8l+7), so the 4 query heads of the
// group share every loaded row. The 16 partial dot products (4 keys x 4 heads)
// are summed over the half-warp by a halving butterfly (15 shuffles; lane l
// ends with key l/4, head l%4), the score is rounded to bf16 before and after
// the 1/sqrt(128) scale exactly as eager's bf16 matmul and multiply round it,
// and an online softmax (float32, exp2) accumulates p * V in registers. The 8
// half-warps merge through shared memory into one normalized partial output and
// its log-sum-exp per head. Pass 2 merges the chunks of each (sequence, head).
// The cache is read once (1.07 GB at the task's size) instead of eager's
// repeat_kv copies and two batched GEMVs (~9.7 GB).
#include <cudal1/abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int kHeadDim = 128;
constexpr int kGroup = 4;                      // query heads per kv head
constexpr int kKeysPerStep = 4;                // keys a half-warp takes at a time
constexpr int kThreads = 128;                  // 8 half-warps
constexpr int kHalfWarps = kThreads / 16;
constexpr int kChunk = 512;                    // keys per block
constexpr float kScale = 0.08838834764831845f;  // 128^-0.5 as eager's bf16 multiply uses it (float)
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kNoScore = -1e30f;             // running max before any key: finite, so exp2 of differences is never NaN
constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ void unpack8(const uint4& r, float (&x)[8]) {
  const uint32_t w[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    x[2 * i] = __uint_as_float(w[i] << 16);
    x[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
  }
}

__device__ __forceinline__ float round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

// Sums v[i] over the 16 lanes of a half-warp; lane l returns the total of v[l].
// Each step keeps the half of the values that the lane's bit selects and adds
// the partner's copy of that half.
__device__ __forceinline__ float reduce16(const float (&v)[16], int lane) {
  float a[8], c[4], e[2];
  const bool b3 = lane & 8, b2 = lane & 4, b1 = lane & 2, b0 = lane & 1;
#pragma unroll
  for (int j = 0; j < 8; ++j)
    a[j] = (b3 ? v[j + 8] : v[j]) + __shfl_xor_sync(kFull, b3 ? v[j] : v[j + 8], 8, 16);  // index 8*b3 + j
#pragma unroll
  for (int j = 0; j < 4; ++j)
    c[j] = (b2 ? a[j + 4] : a[j]) + __shfl_xor_sync(kFull, b2 ? a[j] : a[j + 4], 4, 16);  // + 4*b2
#pragma unroll
  for (int j = 0; j < 2; ++j)
    e[j] = (b1 ? c[j + 2] : c[j]) + __shfl_xor_sync(kFull, b1 ? c[j] : c[j + 2], 2, 16);  // + 2*b1
  return (b0 ? e[1] : e[0]) + __shfl_xor_sync(kFull, b0 ? e[0] : e[1], 1, 16);              // + b0 = lane
}

// Pass 1. Grid (chunks, kv heads, batch). part_o: (B, Hq, chunks, 128) outputs
// normalized within the chunk; part_lse: (B, Hq, chunks) their log2-sum-exp2.
__global__ void __launch_bounds__(kThreads)
    decode_chunk(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                 const __nv_bfloat16* __restrict__ v, float* __restrict__ part_o, float* __restrict__ part_lse,
                 int q_heads, int kv_heads, int T) {
  const int chunk = blockIdx.x, g = blockIdx.y, b = blockIdx.z, chunks = gridDim.x;
  const int lane = threadIdx.x & 15, hw = threadIdx.x >> 4;
  const int t_begin = chunk * kChunk, t_end = min(T, t_begin + kChunk);

  // The group's 4 query rows, this lane's 8 dims of each: q[b, g*4 + h, 0, 8l..8l+7].
  float qf[kGroup][8];
#pragma unroll
  for (int h = 0; h < kGroup; ++h) {
    const int64_t row = static_cast<int64_t>(b) * q_heads + g * kGroup + h;
    unpack8(__ldg(reinterpret_cast<const uint4*>(q + row * kHeadDim) + lane), qf[h]);
  }
  const int64_t kv_row0 = (static_cast<int64_t>(b) * kv_heads + g) * T;  // row of key 0 in k and v
  const uint4* k_rows = reinterpret_cast<const uint4*>(k + kv_row0 * kHeadDim) + lane;
  const uint4* v_rows = reinterpret_cast<const uint4*>(v + kv_row0 * kHeadDim) + lane;

  // Online softmax state. Lane l keeps the running max of head l%4 (the 4 lanes
  // of a head keep identical copies) and a partial sum of its own p's; acc[h]
  // is this lane's 8 dims of head h's unnormalized output.
  const int my_key = lane >> 2;  // and head lane & 3
  float m_run = kNoScore, l_run = 0.f;
  float acc[kGroup][8];
#pragma unroll
  for (int h = 0; h < kGroup; ++h)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[h][j] = 0.f;

  // Block-uniform trip count: every lane runs every step (shuffles stay full).
  for (int base = t_begin; base < t_end; base += kHalfWarps * kKeysPerStep) {
    const int t0 = base + hw * kKeysPerStep;  // this half-warp's keys: t0 .. t0+3
    uint4 kr[kKeysPerStep], vr[kKeysPerStep];
#pragma unroll
    for (int u = 0; u < kKeysPerStep; ++u) {
      kr[u] = vr[u] = make_uint4(0, 0, 0, 0);
      if (t0 + u < t_end) {
        kr[u] = __ldcs(k_rows + static_cast<int64_t>(t0 + u) * (kHeadDim / 8));
        vr[u] = __ldcs(v_rows + static_cast<int64_t>(t0 + u) * (kHeadDim / 8));
      }
    }
    float dots[kKeysPerStep * kGroup];  // index 4u + h
#pragma unroll
    for (int u = 0; u < kKeysPerStep; ++u) {
      float kf[8];
      unpack8(kr[u], kf);
#pragma unroll
      for (int h = 0; h < kGroup; ++h) {
        float d = 0.f;
#pragma unroll
        for (int j = 0; j < 8; ++j) d = fmaf(qf[h][j], kf[j], d);
        dots[kKeysPerStep * u + h] = d;
      }
    }
    const float dot = reduce16(dots, lane);  // key t0 + my_key, head my_head
    // Eager: bf16(q . k) then bf16(that * scale); softmax in float32 (here in base 2).
    const float x = t0 + my_key < t_end ? round_bf16(round_bf16(dot) * kScale) * kLog2e : -INFINITY;
    float m_step = fmaxf(x, __shfl_xor_sync(kFull, x, 4, 16));  // max over the 4 keys of this head
    m_step = fmaxf(m_step, __shfl_xor_sync(kFull, m_step, 8, 16));
    const float m_new = fmaxf(m_run, m_step);
    const float alpha = exp2f(m_run - m_new);  // rescales what came before
    const float p = exp2f(x - m_new);          // 0 for a missing key
    l_run = l_run * alpha + p;
    m_run = m_new;

#pragma unroll
    for (int h = 0; h < kGroup; ++h) {
      const float a = __shfl_sync(kFull, alpha, h, 16);  // lane h holds head h's alpha
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[h][j] *= a;
    }
#pragma unroll
    for (int u = 0; u < kKeysPerStep; ++u) {
      float vf[8];
      unpack8(vr[u], vf);
#pragma unroll
      for (int h = 0; h < kGroup; ++h) {
        const float pu = __shfl_sync(kFull, p, kGroup * u + h, 16);  // lane 4u + h holds p(key u, head h)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[h][j] = fmaf(pu, vf[j], acc[h][j]);
      }
    }
  }

  // Merge the 8 half-warps. l of head h: the sum over its 4 lanes (h, h+4, h+8, h+12).
  l_run += __shfl_xor_sync(kFull, l_run, 4, 16);
  l_run += __shfl_xor_sync(kFull, l_run, 8, 16);
  __shared__ float s_m[kHalfWarps][kGroup], s_l[kHalfWarps][kGroup];
  __shared__ __align__(16) float s_acc[kHalfWarps][kGroup][kHeadDim];
  if (lane < kGroup) {  // lane h: head h
    s_m[hw][lane] = m_run;
    s_l[hw][lane] = l_run;
  }
#pragma unroll
  for (int h = 0; h < kGroup; ++h) {
    float4* dst = reinterpret_cast<float4*>(&s_acc[hw][h][8 * lane]);
    dst[0] = make_float4(acc[h][0], acc[h][1], acc[h][2], acc[h][3]);
    dst[1] = make_float4(acc[h][4], acc[h][5], acc[h][6], acc[h][7]);
  }
  __syncthreads();

  const int d = threadIdx.x;  // one output dim per thread, all 4 heads
#pragma unroll
  for (int h = 0; h < kGroup; ++h) {
    float m = kNoScore;
#pragma unroll
    for (int i = 0; i < kHalfWarps; ++i) m = fmaxf(m, s_m[i][h]);
    float l = 0.f, o = 0.f;
#pragma unroll
    for (int i = 0; i < kHalfWarps; ++i) {
      const float w = exp2f(s_m[i][h] - m);  // 0 for a half-warp that saw no key (its m is kNoScore)
      l = fmaf(w, s_l[i][h], l);
      o = fmaf(w, s_acc[i][h][d], o);
    }
    // l >= 1: the half-warp holding the chunk's largest score contributes exp2(0) = 1 for it.
    const int64_t row = (static_cast<int64_t>(b) * q_heads + g * kGroup + h) * chunks + chunk;
    part_o[row * kHeadDim + d] = o / l;
    if (d == 0) part_lse[row] = m + log2f(l);
  }
}

// Pass 2. One block of 128 threads per (sequence, query head); thread d merges dim d over the chunks.
__global__ void __launch_bounds__(kHeadDim)
    combine_chunks(const float* __restrict__ part_o, const float* __restrict__ part_lse,
                   __nv_bfloat16* __restrict__ out, int chunks) {
  const int64_t row = blockIdx.x;  // b * Hq + h; out is (B, 1, Hq, 128): row * 128 + d
  const int d = threadIdx.x;
  const float* lse = part_lse + row * chunks;
  float m = -INFINITY;
  for (int c = 0; c < chunks; ++c) m = fmaxf(m, lse[c]);  // finite: every chunk has a key
  float w_sum = 0.f, o = 0.f;
  for (int c = 0; c < chunks; ++c) {
    const float w = exp2f(lse[c] - m);
    w_sum += w;
    o = fmaf(w, part_o[(row * chunks + c) * kHeadDim + d], o);
  }
  out[row * kHeadDim + d] = __float2bfloat16_rn(o / w_sum);
}

// Scratch for the partial results, grown on demand and kept for later calls
// (it holds no results across calls: every call rewrites what it reads).
float* g_scratch = nullptr;
size_t g_scratch_bytes = 0;

float* scratch(size_t bytes) {
  if (bytes > g_scratch_bytes) {
    if (g_scratch) cudaFree(g_scratch);
    g_scratch = nullptr;
    g_scratch_bytes = 0;
    if (cudaMalloc(&g_scratch, bytes) != cudaSuccess) return nullptr;
    g_scratch_bytes = bytes;
  }
  return g_scratch;
}

bool is_bf16(const cudal1_tensor& t, int ndim) { return t.dtype == CUDAL1_BF16 && t.ndim == ndim; }

}  // namespace

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  (void)params;
  if (n_args != 3 || n_params != 0 || n_outs != 1) return 1;
  const cudal1_tensor &q = args[0], &k = args[1], &v = args[2];  // (B, Hq, 1, 128), (B, Hk, T, 128) x 2
  cudal1_tensor& out = outs[0];                                   // (B, 1, Hq, 128)
  if (!is_bf16(q, 4) || !is_bf16(k, 4) || !is_bf16(v, 4) || !is_bf16(out, 4)) return 2;
  const int64_t B = q.shape[0], Hq = q.shape[1], Hk = k.shape[1], T = k.shape[2];
  if (q.shape[2] != 1 || q.shape[3] != kHeadDim) return 2;
  for (int i = 0; i < 4; ++i)
    if (v.shape[i] != k.shape[i]) return 2;
  if (k.shape[0] != B || k.shape[3] != kHeadDim || Hq != Hk * kGroup) return 2;
  if (out.shape[0] != B || out.shape[1] != 1 || out.shape[2] != Hq || out.shape[3] != kHeadDim) return 2;
  if (B * Hq == 0) return 0;
  if (T < 1) return 2;  // softmax over no keys: the reference gives NaN
  const int64_t chunks = (T + kChunk - 1) / kChunk;
  if (T > 0x7fffffff - kChunk || chunks > 65535 || Hk > 65535 || B > 65535 || B * Hq > 0x7fffffff) return 2;

  const size_t rows = static_cast<size_t>(B * Hq * chunks);
  float* part = scratch(rows * (kHeadDim + 1) * sizeof(float));
  if (!part) return 3;
  float* part_o = part;
  float* part_lse = part + rows * kHeadDim;

  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const dim3 grid(static_cast<unsigned>(chunks), static_cast<unsigned>(Hk), static_cast<unsigned>(B));
  decode_chunk<<<grid, kThreads, 0, s>>>(static_cast<const __nv_bfloat16*>(q.data),
                                         static_cast<const __nv_bfloat16*>(k.data),
                                         static_cast<const __nv_bfloat16*>(v.data), part_o, part_lse,
                                         static_cast<int>(Hq), static_cast<int>(Hk), static_cast<int>(T));
  combine_chunks<<<static_cast<unsigned>(B * Hq), kHeadDim, 0, s>>>(part_o, part_lse,
                                                                    static_cast<__nv_bfloat16*>(out.data),
                                                                    static_cast<int>(chunks));
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
