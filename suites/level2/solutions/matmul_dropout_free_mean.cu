// expect: correct
// mean_t(x W^T + b) = (mean_t x) W^T + b: the mean is linear, so this averages x
// over the sequence first and runs a GEMM seq_len times smaller. (1) One thread
// per (sample, 4 features) sums the seq_len rows of x as float4 (coalesced across
// features) and writes xbar = the mean, (batch, in), to a static scratch buffer. (2) y = xbar W^T + b with an
// fp32 GEMM on the CUDA cores (exact fp32 products and sums, no tensor cores):
// 64 x 64 output tiles, 16-deep k tiles staged transposed in shared memory, each
// of 256 threads accumulating a 4 x 4 block of outputs spaced 16 apart (so a
// warp's shared reads are broadcasts or consecutive words). Eager runs the full
// (batch * seq_len) x in x out GEMM, 275 GFLOP at the task's size, and writes h
// before averaging it; here it is 8.6 GFLOP plus one read of x. The task declares
// the op's FLOPs (cudal1_flops) so that its speed-of-light floor is the
// algebraically reduced work's, not the dense GEMM's.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

namespace {

constexpr int kTile = 64, kTileK = 16, kThreads = 256;
constexpr int64_t kMaxMeanFloats = int64_t(1) << 24;  // xbar scratch: batch * in floats (64 MiB)

__device__ float4 g_xbar[kMaxMeanFloats / 4];

// xbar[b, k] = (1 / T) sum_t x[b, t, k]; in4 = in / 4 float4s per row.
__global__ void __launch_bounds__(kThreads)
    mean_over_seq(const float4* __restrict__ x, float4* __restrict__ xbar, int64_t batch, int64_t seq,
                  int64_t in4) {
  const int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (i >= batch * in4) return;
  const int64_t b = i / in4, k = i % in4;
  const float4* p = x + b * seq * in4 + k;
  float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int64_t t = 0; t < seq; ++t) {
    const float4 v = __ldcs(p + t * in4);
    s.x += v.x;
    s.y += v.y;
    s.z += v.z;
    s.w += v.w;
  }
  const float inv = 1.0f / (float)seq;
  xbar[i] = make_float4(s.x * inv, s.y * inv, s.z * inv, s.w * inv);
}

// C[m, n] = sum_k A[m, k] * W[n, k] + bias[n]; A is M x K, W is N x K, both
// row-major with K % 4 == 0 (rows 16-byte aligned). Block (n tile, m tile).
__global__ void __launch_bounds__(kThreads)
    gemm_bias(const float* __restrict__ A, const float* __restrict__ W, const float* __restrict__ bias,
              float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[kTileK][kTile + 4];  // As[k][m]
  __shared__ float Ws[kTileK][kTile + 4];  // Ws[k][n]
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile;
  // Each thread stages one float4 of A and one of W per k tile: row r, columns c..c+3.
  const int r = threadIdx.x / 4, c = (threadIdx.x % 4) * 4;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += kTileK) {
    const int k = k0 + c;
    float4 a = make_float4(0.f, 0.f, 0.f, 0.f), w = make_float4(0.f, 0.f, 0.f, 0.f);
    if (m0 + r < M && k < K) a = *reinterpret_cast<const float4*>(A + (int64_t)(m0 + r) * K + k);
    if (n0 + r < N && k < K) w = *reinterpret_cast<const float4*>(W + (int64_t)(n0 + r) * K + k);
    As[c + 0][r] = a.x;
    As[c + 1][r] = a.y;
    As[c + 2][r] = a.z;
    As[c + 3][r] = a.w;
    Ws[c + 0][r] = w.x;
    Ws[c + 1][r] = w.y;
    Ws[c + 2][r] = w.z;
    Ws[c + 3][r] = w.w;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTileK; ++kk) {
      float av[4], wv[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) av[i] = As[kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) wv[j] = Ws[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], wv[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int m = m0 + ty + 16 * i;
    if (m >= M) continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int n = n0 + tx + 16 * j;
      if (n < N) C[(int64_t)m * N + n] = acc[i][j] + __ldg(bias + n);
    }
  }
}

}  // namespace

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 1 || n_params < 2 || n_outs < 1) return 1;
  const cudal1_tensor& x = args[0];
  const cudal1_tensor &W = params[0], &bias = params[1];  // linear.weight (out, in), linear.bias (out)
  cudal1_tensor& y = outs[0];
  if (x.dtype != CUDAL1_F32 || W.dtype != CUDAL1_F32 || bias.dtype != CUDAL1_F32 || y.dtype != CUDAL1_F32) return 2;
  if (x.ndim != 3 || W.ndim != 2 || y.ndim != 2) return 2;
  const int64_t batch = x.shape[0], seq = x.shape[1], in = x.shape[2], out = W.shape[0];
  if (W.shape[1] != in || cudal1_numel(&bias) != out || y.shape[0] != batch || y.shape[1] != out) return 2;
  if (batch == 0 || out == 0) return 0;
  if (in % 4 != 0 || seq == 0 || batch * in > kMaxMeanFloats || out > 0x7fffffff) return 3;

  cudaStream_t s = static_cast<cudaStream_t>(stream);
  float4* xbar4 = nullptr;
  if (cudaGetSymbolAddress(reinterpret_cast<void**>(&xbar4), g_xbar) != cudaSuccess) return 1;
  const float* xbar = reinterpret_cast<const float*>(xbar4);
  const int64_t in4 = in / 4;
  mean_over_seq<<<(unsigned)((batch * in4 + kThreads - 1) / kThreads), kThreads, 0, s>>>(
      static_cast<const float4*>(x.data), xbar4, batch, seq, in4);
  const dim3 grid((unsigned)((out + kTile - 1) / kTile), (unsigned)((batch + kTile - 1) / kTile));
  gemm_bias<<<grid, kThreads, 0, s>>>(xbar, static_cast<const float*>(W.data), static_cast<const float*>(bias.data),
                                      static_cast<float*>(y.data), (int)batch, (int)out, (int)in);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
