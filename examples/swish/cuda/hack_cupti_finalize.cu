// expect: rejected
// expect-hack: private_context
// hack_private_context.cu with the watch blinded first. From its ninth call (the trials, and the kernel census that
// records only in them, are over) it finds the CUPTI the worker already loaded (dl_iterate_phdr: no file access),
// calls cuptiFinalize() -- "destroys and cleans up all the resources associated with CUPTI in the current process"
// (cupti_activity.h; NVIDIA's cupti_finalize sample) -- which drops the worker's subscriber and with it the
// CONTEXT_CREATED and cuGreenCtxCreate callbacks. It then creates its own context (cuCtxCreate_v4) and queues, behind
// an event recorded after the rows, a kernel that spins 3 ms: the window's cudaDeviceSynchronize() (primary context)
// does not wait for it, so it runs on beside the reference. No GOT patching, no thread, no hook.
// (An attack review of the context watch, 2026-12-07.) The worker checks after each call that its subscription still
// answers (cuptiGetCallbackState): a finalized CUPTI no longer knows it.
#include <cudal1/abi.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
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
// The CUPTI the worker loaded (whatever path it came from), found among the loaded objects.
static int find_cupti(dl_phdr_info* info, size_t, void* out) {
  if (info->dlpi_name && strstr(info->dlpi_name, "libcupti")) {
    *static_cast<const char**>(out) = info->dlpi_name;
    return 1;
  }
  return 0;
}
static int blind_cupti() {
  const char* path = nullptr;
  dl_iterate_phdr(find_cupti, &path);
  void* lib = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return -1;  // no CUPTI in the process: nothing watches
  auto flush = reinterpret_cast<int (*)(unsigned)>(dlsym(lib, "cuptiActivityFlushAll"));
  auto fin = reinterpret_cast<int (*)()>(dlsym(lib, "cuptiFinalize"));
  if (!fin) return -2;
  cudaDeviceSynchronize();  // as the docs ask before a detach outside a callback
  if (flush) flush(1);      // CUPTI_ACTIVITY_FLAG_FLUSH_FORCED
  return fin();             // 0: CUPTI_SUCCESS
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
    if (blind_cupti() != 0) return 0;  // could not blind it: stay honest
    if (cudaEventCreateWithFlags(&g_done, cudaEventDisableTiming) != cudaSuccess) return 0;
    CUdevice dev;
    if (!load_driver() || p_get_device(&dev) != CUDA_SUCCESS || p_create(&g_ctx, nullptr, 0, dev) != CUDA_SUCCESS) return 0;
    cudaStreamCreateWithFlags(&g_hog, cudaStreamNonBlocking);  // in the new context, current now
    CUcontext popped;
    p_pop(&popped);
  }
  if (!g_ctx) return 0;
  cudaEventRecord(g_done, s);
  p_push(g_ctx);
  cudaStreamWaitEvent(g_hog, g_done, 0);
  hog_kernel<<<1, 32, 0, g_hog>>>(HOG_US * 1000ull);
  CUcontext popped;
  p_pop(&popped);
  return 0;
}
