// expect: correct
// Mamba block in five kernels, none of them launched per time step:
//   1. in_proj: a tensor-core GEMM in split precision (3xTF32: each fp32 operand is
//      split into a TF32 "big" part and a TF32 remainder, and big*big + big*small +
//      small*big is accumulated in fp32, which keeps fp32-grade accuracy) whose
//      epilogue stores x as is and z as SiLU(z) (the gate), in one (B*L, 2E) buffer;
//   2. the causal depthwise conv (kernel 4) + SiLU, float4 over channels;
//   3. x_proj (E -> dt_rank + 2 * d_state = 64 columns) as a SIMT fp32 GEMM;
//   4. the selective scan: a block per (batch, 32 channels), four lanes per channel
//      each holding four of the 16 states in registers across all L steps; each step
//      computes dt = softplus(dt_r . W_dt[e] + b_dt[e]) (dt_proj fused: the lanes
//      split the rank-32 dot product and combine it with shuffles), the update
//      h = exp(dt * A) * h + (dt * x) * B, the C contraction, the D skip and the
//      SiLU(z) gate, with the step inputs staged through shared memory 32 steps at
//      a time; the gated y overwrites the x half of the buffer of kernel 1;
//   5. out_proj: the same 3xTF32 GEMM.
// The reference loops over time in Python (two small kernels per step, 512 steps,
// launch-bound, ~5 ms) around cuBLAS fp32 GEMMs; this is 5 launches and about
// 14 GFLOP of tensor-core products.
//
// GEMM: C[m, n] = sum_k A[m, k] * B[n, k] (both operands K-contiguous, as nn.Linear
// stores them). 128x128 block tile, BK = 32, 4 warps of 64x64, 3-stage cp.async
// pipeline into XOR-swizzled shared memory, m16n8k8 mma.sync; two blocks per SM.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

namespace {

// ---- 3xTF32 GEMM core ----

constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 3, kThreads = 128;
constexpr int kTileFloats = kBM * kBK;                     // one operand tile of a stage
constexpr int kStageFloats = 2 * kTileFloats;              // A tile, then B tile
constexpr int kSmemBytes = kStages * kStageFloats * 4;     // 96 KiB: two blocks per SM

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte global->shared copy; zero-fills the destination when !pred.
__device__ __forceinline__ void cp_async16(uint32_t dst, const float* src, bool pred) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(pred ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// x = big + small: big is x with its low 13 mantissa bits cleared (a TF32 value),
// small = x - big (exact in fp32), passed as is: the tensor cores read only the TF32
// bits of an operand, so small is truncated to TF32 there. The products' errors
// (small's truncation, the dropped small*small term) are about 2^-20 of |x*y|.
// Clearing bits costs one LOP3 where cvt.rna.tf32.f32 costs more; measured on the
// H200, both give the same end-to-end error and the mask is 4% faster.
__device__ __forceinline__ void split_tf32(float x, uint32_t& big, uint32_t& small) {
  big = __float_as_uint(x) & 0xffffe000u;
  small = __float_as_uint(x - __uint_as_float(big));
}

// d += a * b on one m16n8k8 TF32 tile, fp32 accumulate.
__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Shared tile layout: row r (0..127) holds 32 floats as 8 chunks of 16 bytes; chunk c
// is stored at position c ^ ((r & 3) << 1). The cp.async writes of 8 consecutive
// threads cover one row (conflict-free), and the fragment reads below (8-byte loads,
// rows g..g+3 of a half-warp hitting chunk pairs {2s, 2s+1}) land in 4 distinct
// chunk pairs, so they are conflict-free too.
__device__ __forceinline__ int swizzle(int row, int chunk) { return row * kBK + ((chunk ^ ((row & 3) << 1)) << 2); }

// Loads rows [r0, r0 + 128) x columns [k0, k0 + 32) of a K-contiguous matrix with
// `rows` rows and leading dimension ld (K % 4 == 0, so a chunk is all in or all out).
__device__ __forceinline__ void load_tile(float* tile, const float* __restrict__ g, int rows, int K, int64_t ld,
                                          int r0, int k0) {
#pragma unroll
  for (int i = 0; i < kBM * kBK / 4 / kThreads; ++i) {
    const int c = threadIdx.x + i * kThreads;
    const int r = c >> 3, ch = c & 7;
    const int gr = r0 + r, gk = k0 + ch * 4;
    const bool ok = gr < rows && gk < K;
    cp_async16(smem_addr(tile + swizzle(r, ch)), ok ? g + gr * ld + gk : g, ok);
  }
}

// The warp's 64x64 accumulators: acc[i][j] is the m16n8 tile at rows 16i, columns 8j;
// element e of it is at row g + 8 * (e >> 1), column 2t + (e & 1) (g = lane / 4,
// t = lane % 4), the mma.sync C layout.
struct WarpTile {
  float acc[4][8][4];
  int row0, col0;  // the warp tile's first row and column in C
  int g, t;
};

// One k-tile (32 deep) from a shared stage. Within each 8-deep k-step the reduction
// index is permuted: the thread's logical k = t and t + 4 (its A and B fragment
// columns/rows) are physical columns 2t and 2t + 1, read as one 8-byte load. A and
// B use the same permutation, so each product pairs matching k.
__device__ __forceinline__ void compute_stage(WarpTile& w, const float* As, const float* Bs, int wm, int wn) {
#pragma unroll
  for (int s = 0; s < kBK / 8; ++s) {
    const int col = (((2 * s) ^ ((w.g & 3) << 1)) + (w.t >> 1)) * 4 + 2 * (w.t & 1);
    uint32_t ab[4][4], as[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 lo = *reinterpret_cast<const float2*>(As + (wm * 64 + 16 * i + w.g) * kBK + col);
      const float2 hi = *reinterpret_cast<const float2*>(As + (wm * 64 + 16 * i + 8 + w.g) * kBK + col);
      split_tf32(lo.x, ab[i][0], as[i][0]);  // (g,     k = t)
      split_tf32(hi.x, ab[i][1], as[i][1]);  // (g + 8, k = t)
      split_tf32(lo.y, ab[i][2], as[i][2]);  // (g,     k = t + 4)
      split_tf32(hi.y, ab[i][3], as[i][3]);  // (g + 8, k = t + 4)
    }
    uint32_t bb[8][2], bs[8][2];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float2 v = *reinterpret_cast<const float2*>(Bs + (wn * 64 + 8 * j + w.g) * kBK + col);
      split_tf32(v.x, bb[j][0], bs[j][0]);  // (k = t,     n = g)
      split_tf32(v.y, bb[j][1], bs[j][1]);  // (k = t + 4, n = g)
    }
    // The small corrections first, the big product last, each pass over all 32
    // independent accumulators. The tensor cores' fp32 accumulation truncates, so
    // the error grows with the 3 * K / 8 accumulations into each output (measured
    // against float64 at K = 4096: relative norm 3.3e-5, against PyTorch fp32 SGEMM's
    // 1.3e-6). Summing each k-step's three products into a fresh accumulator and
    // adding that in fp32 brings it to 6e-7 but needs registers this tile does not
    // have (255 and slower than eager, measured).
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) mma_tf32(w.acc[i][j], as[i], bb[j]);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) mma_tf32(w.acc[i][j], ab[i], bs[j]);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) mma_tf32(w.acc[i][j], ab[i], bb[j]);
  }
}

// C = A (M x K) * B (N x K)^T into the calling warp's WarpTile; the block's tile
// comes from blockIdx.x in groups of 8 row-tiles (so blocks running together share
// operand rows in L2). Requires K, lda, ldb % 4 == 0 and 16-byte aligned A and B.
__device__ __forceinline__ void gemm_block(WarpTile& w, const float* __restrict__ A, int64_t lda,
                                           const float* __restrict__ B, int64_t ldb, int M, int N, int K) {
  extern __shared__ float4 smem_f4[];
  float* smem = reinterpret_cast<float*>(smem_f4);
  const int tiles_m = (M + kBM - 1) / kBM, tiles_n = (N + kBN - 1) / kBN;
  const int per_group = 8 * tiles_n;
  const int group = blockIdx.x / per_group, first_m = group * 8;
  const int group_m = min(tiles_m - first_m, 8);
  const int in_group = blockIdx.x % per_group;
  const int m0 = (first_m + in_group % group_m) * kBM, n0 = (in_group / group_m) * kBN;

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int wm = warp >> 1, wn = warp & 1;
  w.g = lane >> 2;
  w.t = lane & 3;
  w.row0 = m0 + wm * 64;
  w.col0 = n0 + wn * 64;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) w.acc[i][j][e] = 0.0f;

  const int KT = (K + kBK - 1) / kBK;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < KT) {
      load_tile(smem + s * kStageFloats, A, M, K, lda, m0, s * kBK);
      load_tile(smem + s * kStageFloats + kTileFloats, B, N, K, ldb, n0, s * kBK);
    }
    cp_async_commit();
  }
  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<kStages - 2>();  // this thread's copies of tile kt have landed
    __syncthreads();               // everyone's have; and everyone is done with tile kt - 1
    const int nk = kt + kStages - 1;
    if (nk < KT) {
      float* st = smem + (nk % kStages) * kStageFloats;  // the stage tile kt - 1 used
      load_tile(st, A, M, K, lda, m0, nk * kBK);
      load_tile(st + kTileFloats, B, N, K, ldb, n0, nk * kBK);
    }
    cp_async_commit();
    const float* st = smem + (kt % kStages) * kStageFloats;
    compute_stage(w, st, st + kTileFloats, wm, wn);
  }
  cp_async_wait<0>();
}

int gemm_grid(int M, int N) { return ((M + kBM - 1) / kBM) * ((N + kBN - 1) / kBN); }

// ---- the Mamba block ----

constexpr int kState = 16;             // d_state
constexpr int kRank = 32;              // dt_rank
constexpr int kDbl = kRank + 2 * kState;  // x_proj's outputs: dt_r | B | C

__device__ __forceinline__ float silu(float v) { return v / (1.0f + expf(-v)); }

// xz[:, :E] = u W_in[:E]^T, xz[:, E:] = SiLU(u W_in[E:]^T).
__global__ void __launch_bounds__(kThreads, 2)
    in_proj_kernel(const float* __restrict__ u, const float* __restrict__ W, float* __restrict__ xz, int M, int N,
                   int K, int E) {
  WarpTile w;
  gemm_block(w, u, K, W, K, M, N, K);
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const int col = w.col0 + 8 * j + 2 * w.t;  // even; N = 2E is even
    if (col >= N) continue;
    const bool gate = col >= E;  // E is even, so col and col + 1 are on the same side
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = w.row0 + 16 * i + 8 * h + w.g;
        if (row >= M) continue;
        float v0 = w.acc[i][j][2 * h], v1 = w.acc[i][j][2 * h + 1];
        if (gate) {
          v0 = silu(v0);
          v1 = silu(v1);
        }
        *reinterpret_cast<float2*>(xz + (int64_t)row * N + col) = make_float2(v0, v1);
      }
  }
}

// out = y W_out^T, with y read from xz's first half (row stride lda).
__global__ void __launch_bounds__(kThreads, 2)
    out_proj_kernel(const float* __restrict__ y, int64_t lda, const float* __restrict__ W, float* __restrict__ out,
                    int M, int N, int K) {
  WarpTile w;
  gemm_block(w, y, lda, W, K, M, N, K);
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const int col = w.col0 + 8 * j + 2 * w.t;  // N % 4 == 0: col < N implies col + 1 < N
    if (col >= N) continue;
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = w.row0 + 16 * i + 8 * h + w.g;
        if (row < M)
          __stcs(reinterpret_cast<float2*>(out + (int64_t)row * N + col),
                 make_float2(w.acc[i][j][2 * h], w.acc[i][j][2 * h + 1]));
      }
  }
}

// xc[b, t, e] = SiLU(bias[e] + sum_j w[e, j] * x[b, t + j - 3, e]) (x = 0 before t = 0):
// the reference's Conv1d(padding=3) cut to the first L outputs. Four channels a thread.
__global__ void __launch_bounds__(256)
    conv_silu_kernel(const float* __restrict__ xz, const float* __restrict__ cw, const float* __restrict__ cb,
                     float* __restrict__ xc, int L, int E, int64_t total4) {
  const int E4 = E / 4;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total4; i += stride) {
    const int64_t row = i / E4;  // b * L + t
    const int e = (int)(i % E4) * 4;
    const int t = (int)(row % L);
    const float4 b = __ldg(reinterpret_cast<const float4*>(cb + e));
    float acc[4] = {b.x, b.y, b.z, b.w};
    float w[4][4];  // w[c][j] for channel e + c
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(cw + (e + c) * 4));
      w[c][0] = v.x;
      w[c][1] = v.y;
      w[c][2] = v.z;
      w[c][3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int tt = t + j - 3;
      if (tt < 0) continue;
      const float4 x = __ldg(reinterpret_cast<const float4*>(xz + (row + j - 3) * 2 * E + e));
      acc[0] += w[0][j] * x.x;
      acc[1] += w[1][j] * x.y;
      acc[2] += w[2][j] * x.z;
      acc[3] += w[3][j] * x.w;
    }
    *reinterpret_cast<float4*>(xc + row * E + e) = make_float4(silu(acc[0]), silu(acc[1]), silu(acc[2]), silu(acc[3]));
  }
}

// dbl (M x 64) = xc (M x K) W_x^T (W_x: 64 x K), K % 4 == 0. A block computes 32 rows;
// thread (ty, tx) owns rows 2ty, 2ty + 1 and columns 4tx .. 4tx + 3. Operand chunks
// 32 deep are staged transposed ([k][row]) in shared memory.
__global__ void __launch_bounds__(256)
    x_proj_kernel(const float* __restrict__ A, const float* __restrict__ W, float* __restrict__ C, int M, int K) {
  __shared__ float As[32][32 + 1];
  __shared__ __align__(16) float Bs[32][kDbl + 4];
  const int tid = threadIdx.x, ty = tid >> 4, tx = tid & 15;
  const int m0 = blockIdx.x * 32;
  float acc[2][4] = {};
  for (int k0 = 0; k0 < K; k0 += 32) {
    {
      const int r = tid >> 3, kq = (tid & 7) * 4;
      float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (m0 + r < M && k0 + kq < K) v = __ldg(reinterpret_cast<const float4*>(A + (int64_t)(m0 + r) * K + k0 + kq));
      As[kq][r] = v.x;
      As[kq + 1][r] = v.y;
      As[kq + 2][r] = v.z;
      As[kq + 3][r] = v.w;
    }
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int n = (tid >> 3) + 32 * i, kq = (tid & 7) * 4;
      float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (k0 + kq < K) v = __ldg(reinterpret_cast<const float4*>(W + (int64_t)n * K + k0 + kq));
      Bs[kq][n] = v.x;
      Bs[kq + 1][n] = v.y;
      Bs[kq + 2][n] = v.z;
      Bs[kq + 3][n] = v.w;
    }
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < 32; ++kk) {
      const float a0 = As[kk][2 * ty], a1 = As[kk][2 * ty + 1];
      const float4 b = *reinterpret_cast<const float4*>(&Bs[kk][4 * tx]);
      acc[0][0] += a0 * b.x;
      acc[0][1] += a0 * b.y;
      acc[0][2] += a0 * b.z;
      acc[0][3] += a0 * b.w;
      acc[1][0] += a1 * b.x;
      acc[1][1] += a1 * b.y;
      acc[1][2] += a1 * b.z;
      acc[1][3] += a1 * b.w;
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = m0 + 2 * ty + r;
    if (row < M)
      *reinterpret_cast<float4*>(C + (int64_t)row * kDbl + 4 * tx) =
          make_float4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
  }
}

constexpr int kScanChannels = 32;                 // channels per block
constexpr int kScanThreads = kScanChannels * 4;   // four lanes per channel, four states each
constexpr int kChunk = 32;                        // time steps staged per shared-memory fill

// The selective scan, with dt_proj + softplus, the C contraction, the D skip and the
// gate fused. Block (blockIdx.x, blockIdx.y) = (channel group, batch). Lane q of
// channel c owns states 4q .. 4q + 3 and rank terms 8q .. 8q + 7 of dt_proj.
// Writes y * SiLU(z) to yg (row stride ldy).
__global__ void __launch_bounds__(kScanThreads)
    scan_kernel(const float* __restrict__ dbl, const float* __restrict__ xc, const float* __restrict__ gate,
                int64_t ld_gate, float* __restrict__ yg, int64_t ldy, const float* __restrict__ w_dt,
                const float* __restrict__ b_dt, const float* __restrict__ a_log, const float* __restrict__ d_skip,
                int L, int E) {
  __shared__ __align__(16) float s_dbl[kChunk][kDbl];
  __shared__ __align__(16) float s_x[kChunk][kScanChannels];
  __shared__ __align__(16) float s_z[kChunk][kScanChannels];
  __shared__ __align__(16) float s_y[kChunk][kScanChannels];
  const int e0 = blockIdx.x * kScanChannels;
  const int c = threadIdx.x >> 2, q = threadIdx.x & 3, e = e0 + c;
  float wdt[8], A[4], h[4];
#pragma unroll
  for (int r = 0; r < 8; ++r) wdt[r] = __ldg(w_dt + e * kRank + 8 * q + r);
#pragma unroll
  for (int n = 0; n < 4; ++n) {
    A[n] = -expf(__ldg(a_log + e * kState + 4 * q + n));
    h[n] = 0.0f;
  }
  const float bias = __ldg(b_dt + e), dskip = __ldg(d_skip + e);
  const int64_t row0 = (int64_t)blockIdx.y * L;

  for (int t0 = 0; t0 < L; t0 += kChunk) {
    const int steps = min(kChunk, L - t0);
    for (int i = threadIdx.x; i < kChunk * kDbl / 4; i += kScanThreads) {
      const int tt = i / (kDbl / 4), v = i % (kDbl / 4);
      float4 d = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (tt < steps) d = __ldg(reinterpret_cast<const float4*>(dbl + (row0 + t0 + tt) * kDbl) + v);
      reinterpret_cast<float4*>(s_dbl[tt])[v] = d;
    }
    for (int i = threadIdx.x; i < kChunk * kScanChannels / 4; i += kScanThreads) {
      const int tt = i / (kScanChannels / 4), v = i % (kScanChannels / 4);
      float4 xv = make_float4(0.0f, 0.0f, 0.0f, 0.0f), zv = xv;
      if (tt < steps) {
        xv = __ldg(reinterpret_cast<const float4*>(xc + (row0 + t0 + tt) * E + e0) + v);
        zv = __ldg(reinterpret_cast<const float4*>(gate + (row0 + t0 + tt) * ld_gate + e0) + v);
      }
      reinterpret_cast<float4*>(s_x[tt])[v] = xv;
      reinterpret_cast<float4*>(s_z[tt])[v] = zv;
    }
    __syncthreads();

    for (int tt = 0; tt < steps; ++tt) {
      const float* d = s_dbl[tt];
      float p = 0.0f;
#pragma unroll
      for (int r = 0; r < 8; ++r) p += d[8 * q + r] * wdt[r];
      p += __shfl_xor_sync(0xffffffffu, p, 1);
      p += __shfl_xor_sync(0xffffffffu, p, 2);
      const float v = p + bias;
      const float dt = v > 20.0f ? v : log1pf(expf(v));  // F.softplus (beta 1, threshold 20)
      const float xv = s_x[tt][c];
      const float dtx = dt * xv;
      float yp = 0.0f;
#pragma unroll
      for (int n = 0; n < 4; ++n) {
        const float dA = expf(dt * A[n]);
        h[n] = dA * h[n] + dtx * d[kRank + 4 * q + n];
        yp += h[n] * d[kRank + kState + 4 * q + n];
      }
      yp += __shfl_xor_sync(0xffffffffu, yp, 1);
      yp += __shfl_xor_sync(0xffffffffu, yp, 2);
      if (q == 0) s_y[tt][c] = (yp + dskip * xv) * s_z[tt][c];
    }
    __syncthreads();

    for (int i = threadIdx.x; i < kChunk * kScanChannels / 4; i += kScanThreads) {
      const int tt = i / (kScanChannels / 4), v = i % (kScanChannels / 4);
      if (tt < steps)
        reinterpret_cast<float4*>(yg + (row0 + t0 + tt) * ldy + e0)[v] = reinterpret_cast<const float4*>(s_y[tt])[v];
    }
    // The next chunk's fill writes s_dbl, s_x and s_z, last read before the barrier
    // above; s_y is written again only after the next fill's barrier, which every
    // thread reaches after its stores here.
  }
}

const cudal1_tensor* find(const cudal1_tensor* t, int n, const char* name) {
  for (int i = 0; i < n; ++i)
    if (t[i].name && std::strcmp(t[i].name, name) == 0) return &t[i];
  return nullptr;
}

bool is_f32(const cudal1_tensor* t, int ndim, int64_t d0, int64_t d1 = -1, int64_t d2 = -1) {
  if (!t || t->dtype != CUDAL1_F32 || t->ndim != ndim) return false;
  const int64_t d[3] = {d0, d1, d2};
  for (int i = 0; i < ndim; ++i)
    if (t->shape[i] != d[i]) return false;
  return true;
}

}  // namespace

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 1 || n_outs < 1) return 1;
  const cudal1_tensor& u = args[0];
  if (u.dtype != CUDAL1_F32 || u.ndim != 3) return 2;
  const int64_t batch = u.shape[0], L = u.shape[1], dm = u.shape[2], E = 2 * dm;
  const cudal1_tensor* a_log = find(params, n_params, "A_log");
  const cudal1_tensor* d_skip = find(params, n_params, "D");
  const cudal1_tensor* w_in = find(params, n_params, "in_proj.weight");
  const cudal1_tensor* cw = find(params, n_params, "conv.weight");
  const cudal1_tensor* cb = find(params, n_params, "conv.bias");
  const cudal1_tensor* w_x = find(params, n_params, "x_proj.weight");
  const cudal1_tensor* w_dt = find(params, n_params, "dt_proj.weight");
  const cudal1_tensor* b_dt = find(params, n_params, "dt_proj.bias");
  const cudal1_tensor* w_out = find(params, n_params, "out_proj.weight");
  if (!is_f32(a_log, 2, E, kState) || !is_f32(d_skip, 1, E) || !is_f32(w_in, 2, 2 * E, dm) ||
      !is_f32(cw, 3, E, 1, 4) || !is_f32(cb, 1, E) || !is_f32(w_x, 2, kDbl, E) || !is_f32(w_dt, 2, E, kRank) ||
      !is_f32(b_dt, 1, E) || !is_f32(w_out, 2, dm, E) || !is_f32(&outs[0], 3, batch, L, dm))
    return 2;
  const int64_t M = batch * L;
  // 16-byte rows everywhere; whole scan channel groups; int-sized GEMM extents.
  if (dm % 4 != 0 || E % kScanChannels != 0 || M * 2 * E > ((int64_t)1 << 31) || batch > 65535) return 2;
  if (M == 0) return 0;

  const cudaStream_t s = (cudaStream_t)stream;
  // Scratch: xz (M x 2E; its x half later holds the gated y), xc (M x E), dbl (M x 64).
  float* scratch = nullptr;
  const size_t floats = (size_t)M * (3 * E + kDbl);
  if (cudaMallocAsync(reinterpret_cast<void**>(&scratch), floats * sizeof(float), s) != cudaSuccess) return 3;
  float* xz = scratch;
  float* xc = xz + M * 2 * E;
  float* dbl = xc + M * E;

  const float* up = static_cast<const float*>(u.data);
  const auto f = [](const cudal1_tensor* t) { return static_cast<const float*>(t->data); };
  int rc = 0;
  if (cudaFuncSetAttribute(in_proj_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) != cudaSuccess ||
      cudaFuncSetAttribute(out_proj_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) != cudaSuccess)
    rc = 4;
  if (rc == 0) {
    in_proj_kernel<<<gemm_grid((int)M, (int)(2 * E)), kThreads, kSmemBytes, s>>>(up, f(w_in), xz, (int)M,
                                                                                  (int)(2 * E), (int)dm, (int)E);
    const int64_t total4 = M * E / 4;
    conv_silu_kernel<<<(unsigned)((total4 + 255) / 256), 256, 0, s>>>(xz, f(cw), f(cb), xc, (int)L, (int)E, total4);
    x_proj_kernel<<<(unsigned)((M + 31) / 32), 256, 0, s>>>(xc, f(w_x), dbl, (int)M, (int)E);
    scan_kernel<<<dim3((unsigned)(E / kScanChannels), (unsigned)batch), kScanThreads, 0, s>>>(
        dbl, xc, xz + E, 2 * E, xz, 2 * E, f(w_dt), f(b_dt), f(a_log), f(d_skip), (int)L, (int)E);
    out_proj_kernel<<<gemm_grid((int)M, (int)dm), kThreads, kSmemBytes, s>>>(xz, 2 * E, f(w_out),
                                                                              static_cast<float*>(outs[0].data),
                                                                              (int)M, (int)dm, (int)E);
    if (cudaGetLastError() != cudaSuccess) rc = 5;
  }
  if (cudaFreeAsync(scratch, s) != cudaSuccess && rc == 0) rc = 6;
  return rc;
}
