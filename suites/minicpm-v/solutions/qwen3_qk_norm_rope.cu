// expect: correct
// Qwen3 per-head q/k RMSNorm + RoPE in one kernel. One block per token (b, s):
// 64 threads first compute that position's cos/sin table in float32 exactly as
// the reference does (1 / powf(1e6, 2i/128), s * inv_freq rounded to float,
// full-range sincosf) into shared memory; then each half-warp owns head rows,
// one 16-byte load (8 bf16) per lane, a 4-step shuffle reduction for the sum of
// squares, and the rotate-half partner (element i +- 64 lives in lane ^ 8)
// fetched with 4 more shuffles. Norm and rotation are the reference's float32
// operations in its order (explicit _rn products, no FMA contraction), rounded
// to bf16 once and written straight into the transposed (b, head, s, :) layout
// with streaming stores. Each q/k byte is read once and written once (~0.67 GB at
// the task's size) instead of eager's ~12 passes.
#include <cudal1/abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int kHeadDim = 128;
constexpr int kThreads = 128;                // 8 half-warps
constexpr int kHalfWarps = kThreads / 16;
constexpr float kTheta = 1e6f;               // Qwen3 rope_theta
constexpr float kEps = 1e-6f;                // Qwen3 rms_norm_eps
constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ void unpack8(const uint4& r, float (&x)[8]) {
  const uint32_t w[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    x[2 * i] = __uint_as_float(w[i] << 16);             // low half: element 2i
    x[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);  // high half: element 2i+1
  }
}

__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);  // .x (low 16 bits) = lo
  return *reinterpret_cast<uint32_t*>(&h);
}

// Normalizes and rotates R rows per half-warp (heads base + hw + 8r). Every lane
// runs every step (loads and stores are predicated, shuffles are not), so the
// full-warp shuffle masks are always honest.
template <int R>
__device__ __forceinline__ void rows(const __nv_bfloat16* __restrict__ in, __nv_bfloat16* __restrict__ out,
                                     const __nv_bfloat16* __restrict__ weight, int heads, int64_t b, int s, int seq,
                                     const float (&c)[8], const float (&sg)[8]) {
  const int lane = threadIdx.x & 15, hw = threadIdx.x >> 4;
  float w_own[8], w_par[8];  // the norm weight at this lane's 8 elements and at its rotate-half partner's
  unpack8(__ldg(reinterpret_cast<const uint4*>(weight) + lane), w_own);
  unpack8(__ldg(reinterpret_cast<const uint4*>(weight) + (lane ^ 8)), w_par);

  for (int base = 0; base < heads; base += kHalfWarps * R) {
    uint4 raw[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {  // all loads first: R x 16 bytes in flight per lane
      const int h = base + hw + kHalfWarps * r;
      raw[r] = make_uint4(0, 0, 0, 0);
      if (h < heads) {  // input row (b, s, h, :)
        const int64_t row = (b * seq + s) * heads + h;
        raw[r] = __ldcs(reinterpret_cast<const uint4*>(in + row * kHeadDim) + lane);
      }
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int h = base + hw + kHalfWarps * r;
      float x[8], xp[8];
      unpack8(raw[r], x);
      float ss = 0.f;
#pragma unroll
      for (int j = 0; j < 8; ++j) ss = fmaf(x[j], x[j], ss);
      ss += __shfl_xor_sync(kFull, ss, 8, 16);
      ss += __shfl_xor_sync(kFull, ss, 4, 16);
      ss += __shfl_xor_sync(kFull, ss, 2, 16);
      ss += __shfl_xor_sync(kFull, ss, 1, 16);
      const float rstd = rsqrtf(ss * (1.0f / kHeadDim) + kEps);
      uint4 par;
      par.x = __shfl_xor_sync(kFull, raw[r].x, 8, 16);
      par.y = __shfl_xor_sync(kFull, raw[r].y, 8, 16);
      par.z = __shfl_xor_sync(kFull, raw[r].z, 8, 16);
      par.w = __shfl_xor_sync(kFull, raw[r].w, 8, 16);
      unpack8(par, xp);
      float o[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        // The reference's order: (x * rstd) * w, then n * cos + rotate_half(n) * sin.
        const float n = __fmul_rn(__fmul_rn(x[j], rstd), w_own[j]);
        const float np = __fmul_rn(__fmul_rn(xp[j], rstd), w_par[j]);
        o[j] = __fadd_rn(__fmul_rn(n, c[j]), __fmul_rn(np, sg[j]));
      }
      if (h < heads) {  // output row (b, h, s, :)
        const int64_t row = (b * heads + h) * seq + s;
        __stcs(reinterpret_cast<uint4*>(out + row * kHeadDim) + lane,
               make_uint4(pack2(o[0], o[1]), pack2(o[2], o[3]), pack2(o[4], o[5]), pack2(o[6], o[7])));
      }
    }
  }
}

__global__ void __launch_bounds__(kThreads)
    qk_norm_rope(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                 const __nv_bfloat16* __restrict__ q_weight, const __nv_bfloat16* __restrict__ k_weight,
                 __nv_bfloat16* __restrict__ q_out, __nv_bfloat16* __restrict__ k_out, int seq, int q_heads,
                 int kv_heads) {
  const int64_t b = blockIdx.x / seq;
  const int s = static_cast<int>(blockIdx.x % seq);

  // cos and sin of this position's 64 angles, as eager PyTorch computes them in
  // float32: inv_freq = 1 / theta^(2i / 128), angle = float(s) * inv_freq.
  __shared__ float2 table[kHeadDim / 2];
  if (threadIdx.x < kHeadDim / 2) {
    const int i = threadIdx.x;
    const float inv_freq = 1.0f / powf(kTheta, static_cast<float>(2 * i) / kHeadDim);
    const float angle = __fmul_rn(static_cast<float>(s), inv_freq);
    float sn, cn;
    sincosf(angle, &sn, &cn);  // full range reduction: angles reach seq - 1 radians
    table[i] = make_float2(cn, sn);
  }
  __syncthreads();

  // Lane l holds elements 8l..8l+7 of a row; element d uses frequency d mod 64.
  // out[i] = n[i] cos - n[i+64] sin (i < 64), out[i+64] = n[i+64] cos + n[i] sin.
  const int lane = threadIdx.x & 15;
  float c[8], sg[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const float2 t = table[8 * (lane & 7) + j];
    c[j] = t.x;
    sg[j] = lane < 8 ? -t.y : t.y;
  }
  rows<4>(q, q_out, q_weight, q_heads, b, s, seq, c, sg);
  rows<1>(k, k_out, k_weight, kv_heads, b, s, seq, c, sg);
}

bool is_bf16(const cudal1_tensor& t, int ndim) { return t.dtype == CUDAL1_BF16 && t.ndim == ndim; }

}  // namespace

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args != 2 || n_params != 2 || n_outs != 2) return 1;
  const cudal1_tensor &q = args[0], &k = args[1];  // (B, S, Hq, 128), (B, S, Hk, 128)
  const cudal1_tensor &q_w = params[0], &k_w = params[1];  // q_norm.weight, k_norm.weight: (128,)
  cudal1_tensor &q_out = outs[0], &k_out = outs[1];          // (B, Hq, S, 128), (B, Hk, S, 128)
  if (!is_bf16(q, 4) || !is_bf16(k, 4) || !is_bf16(q_w, 1) || !is_bf16(k_w, 1) || !is_bf16(q_out, 4) ||
      !is_bf16(k_out, 4))
    return 2;
  const int64_t B = q.shape[0], S = q.shape[1], Hq = q.shape[2], Hk = k.shape[2];
  if (q.shape[3] != kHeadDim || k.shape[3] != kHeadDim || k.shape[0] != B || k.shape[1] != S) return 2;
  if (q_w.shape[0] != kHeadDim || k_w.shape[0] != kHeadDim) return 2;
  const int64_t q_out_shape[4] = {B, Hq, S, kHeadDim}, k_out_shape[4] = {B, Hk, S, kHeadDim};
  for (int i = 0; i < 4; ++i)
    if (q_out.shape[i] != q_out_shape[i] || k_out.shape[i] != k_out_shape[i]) return 2;
  if (B * S == 0) return 0;
  if (B * S > 0x7fffffff || S > (1 << 24) || Hq > 0x7fffffff || Hk > 0x7fffffff) return 2;  // one block per token

  qk_norm_rope<<<static_cast<unsigned>(B * S), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(q.data), static_cast<const __nv_bfloat16*>(k.data),
      static_cast<const __nv_bfloat16*>(q_w.data), static_cast<const __nv_bfloat16*>(k_w.data),
      static_cast<__nv_bfloat16*>(q_out.data), static_cast<__nv_bfloat16*>(k_out.data), static_cast<int>(S),
      static_cast<int>(Hq), static_cast<int>(Hk));
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
