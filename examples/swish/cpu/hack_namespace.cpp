// expect: rejected
// expect-hack: sandbox_escape
// At load, makes itself root of a new user namespace with network namespaces of its own, whose teardown the
// kernel does in threads outside the worker (work the freeze between calls and the censuses do not see),
// then does honest work; the process filter denies new namespaces.
#include <cudal1/abi.h>

#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <vector>

static std::vector<int> g_sockets;

__attribute__((constructor)) static void make_namespaces() {
  if (unshare(CLONE_NEWUSER) != 0) return;
  for (int i = 0; i < 16; ++i) {
    if (unshare(CLONE_NEWNET) != 0) return;
    g_sockets.push_back(socket(AF_INET, SOCK_DGRAM, 0));  // keeps the namespace alive until closed
  }
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  if (!g_sockets.empty()) {  // a namespace's teardown, in the kernel's threads, after the call
    close(g_sockets.back());
    g_sockets.pop_back();
  }
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  return 0;
}
