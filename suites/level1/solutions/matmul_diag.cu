// expect: correct
// diag(d) @ B as what it is: C[i, j] = d[i] * B[i, j]. PyTorch materializes the
// n x n diagonal matrix and runs a dense fp32 GEMM (2 n^2 m FLOP, ~2.8 ms at
// n = m = 4096); the product needs one multiply per element, so this kernel is a
// stream over B: read 64 MiB, write 64 MiB. One block per (row, 1024-column
// slice): d[i] is read once per block, B and C move as float4 with streaming
// (evict-first) loads and stores, four vectors in flight per thread. The task
// declares the op's n * m FLOPs (cudal1_flops), so the speed-of-light floor is
// the bytes' floor, not the dense GEMM's.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

namespace {

constexpr int kThreads = 256;
constexpr int kVectorsPerThread = 4;
constexpr int kVectorsPerBlock = kThreads * kVectorsPerThread;  // 1024 float4: 4096 columns

// m % 4 == 0: each row is m / 4 float4s, 16-byte aligned (buffers are 256-byte aligned).
__global__ void __launch_bounds__(kThreads)
    scale_rows4(const float* __restrict__ d, const float4* __restrict__ B, float4* __restrict__ C, int64_t m4) {
  const int64_t row = blockIdx.y;
  const float s = __ldg(d + row);
  const float4* b = B + row * m4;
  float4* c = C + row * m4;
  const int64_t first = (int64_t)blockIdx.x * kVectorsPerBlock + threadIdx.x;
  float4 v[kVectorsPerThread];
#pragma unroll
  for (int u = 0; u < kVectorsPerThread; ++u) {
    const int64_t j = first + u * kThreads;
    if (j < m4) v[u] = __ldcs(b + j);
  }
#pragma unroll
  for (int u = 0; u < kVectorsPerThread; ++u) {
    const int64_t j = first + u * kThreads;
    if (j < m4) __stcs(c + j, make_float4(s * v[u].x, s * v[u].y, s * v[u].z, s * v[u].w));
  }
}

// Any m: one element per thread and step.
__global__ void __launch_bounds__(kThreads)
    scale_rows(const float* __restrict__ d, const float* __restrict__ B, float* __restrict__ C, int64_t m) {
  const int64_t row = blockIdx.y;
  const float s = __ldg(d + row);
  for (int64_t j = (int64_t)blockIdx.x * kThreads + threadIdx.x; j < m; j += (int64_t)gridDim.x * kThreads)
    C[row * m + j] = s * B[row * m + j];
}

}  // namespace

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* /*params*/, int /*n_params*/,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 2 || n_outs < 1) return 1;
  const cudal1_tensor& d = args[0];
  const cudal1_tensor& B = args[1];
  cudal1_tensor& C = outs[0];
  if (d.dtype != CUDAL1_F32 || B.dtype != CUDAL1_F32 || C.dtype != CUDAL1_F32) return 2;
  if (d.ndim != 1 || B.ndim != 2 || C.ndim != 2 || B.shape[0] != d.shape[0] || C.shape[0] != B.shape[0] ||
      C.shape[1] != B.shape[1])
    return 2;
  const int64_t n = B.shape[0], m = B.shape[1];
  if (n == 0 || m == 0) return 0;
  if (n > 65535) return 3;  // rows go on grid y
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (m % 4 == 0) {
    const int64_t m4 = m / 4;
    const dim3 grid((unsigned)((m4 + kVectorsPerBlock - 1) / kVectorsPerBlock), (unsigned)n);
    scale_rows4<<<grid, kThreads, 0, s>>>(static_cast<const float*>(d.data), static_cast<const float4*>(B.data),
                                          static_cast<float4*>(C.data), m4);
  } else {
    const dim3 grid((unsigned)((m + kThreads - 1) / kThreads < 16 ? (m + kThreads - 1) / kThreads : 16), (unsigned)n);
    scale_rows<<<grid, kThreads, 0, s>>>(static_cast<const float*>(d.data), static_cast<const float*>(B.data),
                                         static_cast<float*>(C.data), m);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
