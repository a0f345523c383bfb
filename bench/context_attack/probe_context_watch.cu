// Not a candidate: a standalone GPU experiment for the questions the attacks rest on. Build and run:
//   nvcc -arch=sm_90 -std=c++20 -rdc=true -o probe probe_context_watch.cu -lcupti -lcuda -ldl -lcudadevrt && ./probe
// (on the judge's machine: the same driver, LD_LIBRARY_PATH=/usr/local/cuda/lib64). It subscribes exactly as
// context_watch::watch() does, then, in order, prints for each route: whether the watch's callback fired, and
// whether cudaDeviceSynchronize() on the primary context waited for a 20 ms spin queued there (sync ms ~20: waited;
// ~0: the work escaped the window). Routes: own context (cuCtxCreate_v4), green context stream, device-side
// fire-and-forget graph launch, a second libcuda in its own link namespace (dlmopen), then cuptiFinalize() followed
// by another cuCtxCreate_v4. Threads of the process are counted around the dlmopen'd driver's init.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <dirent.h>
#include <dlfcn.h>
#include <atomic>
#include <chrono>
#include <cstdio>
constexpr unsigned long long kSpinNs = 20000000ull;
static std::atomic<int> g_created{0}, g_green{0};
static void CUPTIAPI on_context(void*, CUpti_CallbackDomain d, CUpti_CallbackId id, const void* data) {
  if (d == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) ++g_created;
  else if (d == CUPTI_CB_DOMAIN_DRIVER_API && static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER) ++g_green;
}
__global__ void spin(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}
__global__ void fire_and_forget(cudaGraphExec_t g) { cudaGraphLaunch(g, cudaStreamGraphFireAndForget); }
static const char kPtx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry spin(.param .u64 ns)\n{\n .reg .u64 %r<5>;\n .reg .pred %p;\n ld.param.u64 %r1, [ns];\n"
    " mov.u64 %r2, %globaltimer;\nLOOP:\n mov.u64 %r3, %globaltimer;\n sub.u64 %r4, %r3, %r2;\n"
    " setp.lt.u64 %p, %r4, %r1;\n @%p bra LOOP;\n ret;\n}\n";
static double sync_ms() {
  auto t0 = std::chrono::steady_clock::now();
  cudaError_t e = cudaDeviceSynchronize();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (e != cudaSuccess) printf("  (sync error %s)\n", cudaGetErrorString(e));
  return ms;
}
static int threads() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) { while (readdir(d)) ++n; closedir(d); }
  return n - 2;
}
static void report(const char* what, double ms) {
  printf("%-44s created_cb=%d green_cb=%d primary sync %.2f ms\n", what, g_created.load(), g_green.load(), ms);
  cudaDeviceSynchronize();
}
static void own_context(const char* what) {
  CUcontext ctx, popped;
  CUdevice dev;
  cuCtxGetDevice(&dev);
  if (CUresult r = cuCtxCreate_v4(&ctx, nullptr, 0, dev); r) { printf("%s: cuCtxCreate %d\n", what, r); return; }
  spin<<<1, 32>>>(kSpinNs);  // in the new context (current)
  if (cudaError_t e = cudaGetLastError()) printf("%s: launch %s\n", what, cudaGetErrorString(e));
  cuCtxPopCurrent(&popped);
  report(what, sync_ms());
  cuCtxSynchronize_v2(ctx);
}
int main() {
  cudaFree(nullptr);  // the primary context, before the watch (as the worker)
  CUpti_SubscriberHandle sub;
  printf("subscribe %d\n", cuptiSubscribe(&sub, on_context, nullptr));
  printf("enable ctx %d\n", cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED));
  printf("enable green %d\n", cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGreenCtxCreate));
  CUpti_SubscriberHandle second;
  printf("second subscriber: %d (39 = MULTIPLE_SUBSCRIBERS)\n", cuptiSubscribe(&second, on_context, nullptr));

  own_context("1 own context (cuCtxCreate_v4)");

  {  // 2 green context: half the SMs, a stream of its own
    CUdevice dev; cuCtxGetDevice(&dev);
    CUdevResource all, part[2], rest; unsigned n = 2;
    CUdevResourceDesc desc; CUgreenCtx g; CUstream gs;
    cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM);
    n = 1;
    CUresult r = cuDevSmResourceSplitByCount(part, &n, &all, &rest, 0, all.sm.smCount / 2);
    if (!r) r = cuDevResourceGenerateDesc(&desc, part, 1);
    if (!r) r = cuGreenCtxCreate(&g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM);
    if (!r) r = cuGreenCtxStreamCreate(&gs, g, CU_STREAM_NON_BLOCKING, 0);
    if (r) printf("2 green context: error %d\n", r);
    else {
      CUcontext gc, popped;
      cuCtxFromGreenCtx(&gc, g);
      cuCtxPushCurrent(gc);
      spin<<<1, 32, 0, (cudaStream_t)gs>>>(kSpinNs);
      cudaError_t e = cudaGetLastError();
      cuCtxPopCurrent(&popped);
      if (e) printf("2 green launch: %s\n", cudaGetErrorString(e));
      report("2 green context stream", sync_ms());
    }
  }
  {  // 3 device-side fire-and-forget launch of a spin graph
    cudaGraph_t g; cudaGraphExec_t ge; cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    spin<<<1, 32, 0, s>>>(kSpinNs);
    cudaStreamEndCapture(s, &g);
    cudaError_t e = cudaGraphInstantiate(&ge, g, cudaGraphInstantiateFlagDeviceLaunch);
    if (!e) e = cudaGraphUpload(ge, s);
    cudaGraph_t pg; cudaGraphExec_t pge;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    fire_and_forget<<<1, 1, 0, s>>>(ge);
    cudaStreamEndCapture(s, &pg);
    if (!e) e = cudaGraphInstantiate(&pge, pg, 0);
    cudaDeviceSynchronize();
    if (!e) e = cudaGraphLaunch(pge, s);
    if (e) printf("3 fire-and-forget: %s\n", cudaGetErrorString(e));
    else report("3 device fire-and-forget graph", sync_ms());
  }
  {  // 4 a second driver in its own link namespace
    int before = threads();
    void* lib = dlmopen(LM_ID_NEWLM, "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) printf("4 dlmopen: %s\n", dlerror());
    else {
      auto init = (CUresult(*)(unsigned))dlsym(lib, "cuInit");
      auto get = (CUresult(*)(CUdevice*, int))dlsym(lib, "cuDeviceGet");
      auto retain = (CUresult(*)(CUcontext*, CUdevice))dlsym(lib, "cuDevicePrimaryCtxRetain");
      auto push = (CUresult(*)(CUcontext))dlsym(lib, "cuCtxPushCurrent_v2");
      auto pop = (CUresult(*)(CUcontext*))dlsym(lib, "cuCtxPopCurrent_v2");
      auto load = (CUresult(*)(CUmodule*, const void*))dlsym(lib, "cuModuleLoadData");
      auto getfn = (CUresult(*)(CUfunction*, CUmodule, const char*))dlsym(lib, "cuModuleGetFunction");
      auto launch = (decltype(&cuLaunchKernel))dlsym(lib, "cuLaunchKernel");
      CUdevice dev; CUcontext ctx, popped; CUmodule mod; CUfunction fn;
      CUresult r = init(0);
      if (!r) r = get(&dev, 0);
      if (!r) r = retain(&ctx, dev);
      if (!r) r = push(ctx);
      if (!r) r = load(&mod, kPtx);
      if (!r) r = getfn(&fn, mod, "spin");
      unsigned long long ns = kSpinNs; void* kp[] = {&ns};
      if (!r) r = launch(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, kp, nullptr);
      pop(&popped);
      printf("4 second driver: rc %d, threads %d -> %d\n", r, before, threads());
      if (!r) report("4 dlmopen'd libcuda", sync_ms());
    }
  }
  printf("5 cuptiFinalize: %d\n", cuptiFinalize());
  own_context("5 own context after cuptiFinalize");
  printf("5 subscribe again after finalize: %d\n", cuptiSubscribe(&second, on_context, nullptr));
  return 0;
}
