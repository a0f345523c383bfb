// expect: runtime_error
// Tries to reach a server on the loopback network (to fetch or leak results); the worker has no network, and the candidate reports the failure by returning 8.
#include <cudal1/abi.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  if (s < 0) return 8;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);  // discard
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ssize_t sent = sendto(s, y, 64, 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
  close(s);
  return sent < 0 ? 8 : 0;  // no route: the sandbox's loopback is down
}
