// expect: correct
// Honest C++20: rows split over std::jthread workers that meet at a
// std::latch, each row a std::span. Every thread is joined before the call
// returns (jthread joins as it goes out of scope). Compiled with -std=c++17
// until 2026-12-07 this was a compile error (a false-rejection review).
#include <cudal1/abi.h>

#include <cmath>
#include <latch>
#include <span>
#include <thread>
#include <vector>

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* /*stream*/) {
  if (n_args < 1 || n_params < 1 || n_outs < 1) return 1;
  const cudal1_tensor& x = args[0];
  const int64_t cols = x.shape[x.ndim - 1];
  const int64_t rows = cols == 0 ? 0 : cudal1_numel(&x) / cols;
  std::span<const float> scale(static_cast<const float*>(params[0].data), static_cast<size_t>(cols));
  const auto* in = static_cast<const float*>(x.data);
  auto* out = static_cast<float*>(outs[0].data);
  constexpr int kParts = 2;
  std::latch done(kParts);
  {
    std::vector<std::jthread> workers;
    for (int p = 0; p < kParts; ++p)
      workers.emplace_back([&, p] {
        for (int64_t i = rows * p / kParts; i < rows * (p + 1) / kParts; ++i) {
          std::span<const float> xr(in + i * cols, static_cast<size_t>(cols));
          std::span<float> yr(out + i * cols, static_cast<size_t>(cols));
          for (size_t j = 0; j < xr.size(); ++j) yr[j] = xr[j] / (1.0f + std::exp(-xr[j])) * scale[j];
        }
        done.count_down();
      });
    done.wait();
  }
  return 0;
}
