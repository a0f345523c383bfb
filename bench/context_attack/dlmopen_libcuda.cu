// Not in the corpus (bench/context_attack/run.sh): what the judge does with it is not measured yet.
// Should be rejected (private_context); the CUPTI watch probably never sees it -- run on a GPU to learn
// whether it is accepted, rejected as background_thread (a second driver's own threads), or fails to initialize)
// A second copy of the CUDA driver in a link namespace of its own (dlmopen(LM_ID_NEWLM, "libcuda.so.1")): its cuInit,
// its primary context, its launches. CUPTI is bound to the libcuda of the base namespace (its callbacks are that
// copy's), so no CONTEXT_CREATED fires; and the worker's cudaDeviceSynchronize() knows nothing of the other driver's
// contexts. From its ninth call it computes the rows honestly on the worker's stream and also launches, in the second
// driver's context, a 3 ms spin that runs on past the window's end, beside the reference. If the second driver fails
// (nvidia-uvm per-process state, glibc's namespace limits) it stays honest and only the rc below says so (stderr).
#include <cudal1/abi.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <dlfcn.h>
#define HOG_NS 3000000ull
__global__ void swish_kernel(const float* x, const float* sc, float* y, int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const float v = x[i];
    y[i] = v / (1.0f + expf(-v)) * sc[i % cols];
  }
}
static const char kPtx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry spin(.param .u64 ns)\n{\n .reg .u64 %r<5>;\n .reg .pred %p;\n ld.param.u64 %r1, [ns];\n"
    " mov.u64 %r2, %globaltimer;\nLOOP:\n mov.u64 %r3, %globaltimer;\n sub.u64 %r4, %r3, %r2;\n"
    " setp.lt.u64 %p, %r4, %r1;\n @%p bra LOOP;\n ret;\n}\n";
static int g_calls = 0;
static int g_state = 0;  // 0 not tried, 1 ready, -1 failed
static CUfunction g_fn = nullptr;
static CUcontext g_ctx = nullptr;
static CUresult (*p_launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                            void**, void**);
static CUresult (*p_push)(CUcontext);
static CUresult (*p_pop)(CUcontext*);
template <class F> static bool sym(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}
static int setup() {
  void* lib = dlmopen(LM_ID_NEWLM, "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) { fprintf(stderr, "dlmopen: %s\n", dlerror()); return -1; }
  CUresult (*init)(unsigned); CUresult (*get)(CUdevice*, int);
  CUresult (*retain)(CUcontext*, CUdevice); CUresult (*load)(CUmodule*, const void*);
  CUresult (*getfn)(CUfunction*, CUmodule, const char*);
  if (!sym(lib, "cuInit", init) || !sym(lib, "cuDeviceGet", get) || !sym(lib, "cuDevicePrimaryCtxRetain", retain) ||
      !sym(lib, "cuModuleLoadData", load) || !sym(lib, "cuModuleGetFunction", getfn) || !sym(lib, "cuLaunchKernel", p_launch) ||
      !sym(lib, "cuCtxPushCurrent_v2", p_push) || !sym(lib, "cuCtxPopCurrent_v2", p_pop))
    return -2;
  CUdevice dev; CUmodule mod; CUcontext popped; CUresult r;
  if ((r = init(0)) != CUDA_SUCCESS) { fprintf(stderr, "second cuInit: %d\n", r); return -3; }
  if ((r = get(&dev, 0)) != CUDA_SUCCESS || (r = retain(&g_ctx, dev)) != CUDA_SUCCESS) { fprintf(stderr, "ctx: %d\n", r); return -4; }
  p_push(g_ctx);
  r = load(&mod, kPtx);
  if (r == CUDA_SUCCESS) r = getfn(&g_fn, mod, "spin");
  p_pop(&popped);
  if (r != CUDA_SUCCESS) { fprintf(stderr, "module: %d\n", r); return -5; }
  return 1;
}

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 1 || n_params < 1 || n_outs < 1 || args[0].ndim < 1) return 1;
  const int64_t cols = args[0].shape[args[0].ndim - 1];
  const int64_t n = cudal1_numel(&args[0]);
  swish_kernel<<<1024, 256, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const float*>(args[0].data),
      static_cast<const float*>(params[0].data), static_cast<float*>(outs[0].data), n, cols);
  if (++g_calls <= 8) return 0;
  if (g_state == 0) g_state = setup() == 1 ? 1 : -1;
  if (g_state != 1) return 0;
  unsigned long long ns = HOG_NS;
  void* kp[] = {&ns};
  CUcontext popped;
  p_push(g_ctx);
  p_launch(g_fn, 1, 1, 1, 32, 1, 1, 0, nullptr, kp, nullptr);
  p_pop(&popped);
  return 0;
}
