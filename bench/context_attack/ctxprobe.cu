// How a second context shows from outside the process: fds on /dev/nvidia*, and /proc/PID/maps lines.
#include <cuda.h>
#include <cuda_runtime.h>
#include <dirent.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <string>
#include <chrono>
#include <cublas_v2.h>
__global__ void spin(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}
__global__ void tiny(int* p) { if (p) *p = 1; }
static void count(const char* when) {
  DIR* d = opendir("/proc/self/fd");
  int total = 0, nv = 0;
  std::string names;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    char link[256] = {0}, path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(path, link, sizeof link - 1);
    ++total;
    if (n > 0 && strstr(link, "/dev/nvidia")) { ++nv; names += std::string(link) + " "; }
  }
  closedir(d);
  FILE* m = fopen("/proc/self/maps", "r");
  int maps = 0, nvmaps = 0; char line[512];
  while (fgets(line, sizeof line, m)) { ++maps; if (strstr(line, "/dev/nvidia")) ++nvmaps; }
  fclose(m);
  printf("%-28s fds %d (nvidia %d) maps %d (nvidia %d)\n", when, total, nv, maps, nvmaps);
}
int main() {
  cudaFree(0);
  count("primary context");
  int* p; cudaMalloc(&p, 1 << 20);
  tiny<<<1, 1>>>(p); cudaDeviceSynchronize();
  count("after malloc+kernel");
  cudaStream_t s; cudaStreamCreate(&s); tiny<<<1,1,0,s>>>(p); cudaDeviceSynchronize();
  count("after a stream");
  void* h; cudaMallocHost(&h, 64 << 20); count("after cudaMallocHost 64MB");
  static char reg[1 << 22]; cudaHostRegister(reg, sizeof reg, 0); count("after cudaHostRegister");
  void* m; cudaMallocManaged(&m, 64 << 20); count("after cudaMallocManaged");
  void* aa; cudaMallocAsync(&aa, 64 << 20, s); cudaStreamSynchronize(s); count("after cudaMallocAsync");
  cudaStream_t many[64]; for (auto& x : many) cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
  for (auto& x : many) tiny<<<1,1,0,x>>>(p);
  cudaDeviceSynchronize(); count("after 64 streams used");
  cublasHandle_t hb; cublasCreate(&hb); float* A; cudaMalloc(&A, 1024*1024*4); float one = 1, zero = 0;
  cublasSgemm(hb, CUBLAS_OP_N, CUBLAS_OP_N, 512, 512, 512, &one, A, 512, A, 512, &zero, A + 512*512, 512);
  cudaDeviceSynchronize(); count("after cublas sgemm");
  cudaGraph_t g; cudaGraphExec_t ge; cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); tiny<<<1,1,0,s>>>(p);
  cudaStreamEndCapture(s, &g); cudaGraphInstantiate(&ge, g, 0); cudaGraphLaunch(ge, s); cudaStreamSynchronize(s);
  count("after a graph");
  void* big; cudaMalloc(&big, 8ull << 30); count("after cudaMalloc 8GB");
  CUdevice dev; cuCtxGetDevice(&dev);
  CUcontext c; CUresult r = cuCtxCreate(&c, nullptr, 0, dev);
  printf("cuCtxCreate %d\n", (int)r);
  count("after cuCtxCreate");
  spin<<<1, 32>>>(1000000);  // in the new context
  printf("launch in new ctx: %s\n", cudaGetErrorString(cudaGetLastError()));
  count("after launch in new ctx");
  CUcontext popped; cuCtxPopCurrent(&popped);
  // timeslice: a 20 ms spin in the new context, then a tiny kernel in the primary, timed from the host
  cuCtxPushCurrent(c); spin<<<1, 32>>>(20000000); cuCtxPopCurrent(&popped);
  for (int i = 0; i < 5; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    tiny<<<1, 1>>>(p); cudaDeviceSynchronize();
    auto t1 = std::chrono::steady_clock::now();
    printf("tiny kernel in primary while the other context spins: %.1f us\n", std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  cuCtxPushCurrent(c); cudaDeviceSynchronize(); cuCtxPopCurrent(&popped);
  for (int i = 0; i < 3; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    tiny<<<1, 1>>>(p); cudaDeviceSynchronize();
    auto t1 = std::chrono::steady_clock::now();
    printf("tiny kernel in primary, other context idle: %.1f us\n", std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  // the same with the primary's events: does the event window include the wait?
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  cuCtxPushCurrent(c); spin<<<1, 32>>>(5000000); cuCtxPopCurrent(&popped);
  usleep(100);
  cudaEventRecord(a); tiny<<<1,1>>>(p); usleep(50); tiny<<<1,1>>>(p); cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b);
  printf("event window over two tiny kernels 50 us apart while the other spins 5 ms: %.3f ms\n", ms);
  cuCtxPushCurrent(c); cudaDeviceSynchronize(); cuCtxPopCurrent(&popped);
  cudaEventRecord(a); tiny<<<1,1>>>(p); usleep(50); tiny<<<1,1>>>(p); cudaEventRecord(b); cudaEventSynchronize(b);
  cudaEventElapsedTime(&ms, a, b);
  printf("same, other idle: %.3f ms\n", ms);
  cuCtxDestroy(c);
  count("after cuCtxDestroy");
  return 0;
}
