// expect: rejected
// expect-hack: private_context
// Computes every row on the worker's stream, as correct.cu does, but from its ninth call on it also queues, in a CUDA
// context of its own, behind an event recorded after the rows, a kernel that spins for 3 ms. The window's
// cudaDeviceSynchronize() waits for the worker's own (primary) context only, so the spin runs on after the window,
// while the judge copies the outputs and times the reference on the same GPU, where contexts take turns.
// (Session 27's attack review, 2026-12-07; no hook, no thread: three driver calls.)
#include <cudal1/abi.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <dlfcn.h>
#define HOG_US 3000
__global__ void swish_kernel(const float* x, const float* sc, float* y, int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const float v = x[i];
    y[i] = v / (1.0f + expf(-v)) * sc[i % cols];
  }
}
__global__ void hog_kernel(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}
static CUcontext g_ctx = nullptr;
static cudaStream_t g_hog = nullptr;
static cudaEvent_t g_done = nullptr;
static int g_calls = 0;
// The driver's entry points through dlopen: the judge's build links no libcuda.
static CUresult (*p_get_device)(CUdevice*);
static CUresult (*p_create)(CUcontext*, CUctxCreateParams*, unsigned, CUdevice);
static CUresult (*p_pop)(CUcontext*);
static CUresult (*p_push)(CUcontext);
static bool load_driver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) return false;
  p_get_device = reinterpret_cast<decltype(p_get_device)>(dlsym(lib, "cuCtxGetDevice"));
  p_create = reinterpret_cast<decltype(p_create)>(dlsym(lib, "cuCtxCreate_v4"));
  p_pop = reinterpret_cast<decltype(p_pop)>(dlsym(lib, "cuCtxPopCurrent_v2"));
  p_push = reinterpret_cast<decltype(p_push)>(dlsym(lib, "cuCtxPushCurrent_v2"));
  return p_get_device && p_create && p_pop && p_push;
}

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 1 || n_params < 1 || n_outs < 1 || args[0].ndim < 1) return 1;
  const int64_t cols = args[0].shape[args[0].ndim - 1];
  const int64_t n = cudal1_numel(&args[0]);
  auto s = static_cast<cudaStream_t>(stream);
  swish_kernel<<<1024, 256, 0, s>>>(static_cast<const float*>(args[0].data), static_cast<const float*>(params[0].data),
                                    static_cast<float*>(outs[0].data), n, cols);
  if (++g_calls <= 8) return 0;  // the trials pass as an honest kernel's would
  if (!g_done) {
    if (cudaEventCreateWithFlags(&g_done, cudaEventDisableTiming) != cudaSuccess) return 0;
    CUdevice dev;
    if (!load_driver() || p_get_device(&dev) != CUDA_SUCCESS || p_create(&g_ctx, nullptr, 0, dev) != CUDA_SUCCESS) return 0;
    cudaStreamCreateWithFlags(&g_hog, cudaStreamNonBlocking);  // in the new context, current now
    CUcontext popped;
    p_pop(&popped);
  }
  cudaEventRecord(g_done, s);
  p_push(g_ctx);
  cudaStreamWaitEvent(g_hog, g_done, 0);
  hog_kernel<<<1, 32, 0, g_hog>>>(HOG_US * 1000ull);
  CUcontext popped;
  p_pop(&popped);
  return 0;
}
