// Built when cudal1 is configured without CUDA: the cuda backend reports
// itself unavailable instead of failing to link.
#include "device/device.h"
#include "device/kernel_census.h"

namespace cudal1 {

result<std::unique_ptr<device>> make_cuda_device() {
  return make_error("this cudal1 was built without CUDA support (no nvcc at configure time)");
}

result<std::unique_ptr<kernel_census>> kernel_census::start() {
  return make_error("this cudal1 was built without CUDA support");
}
std::string kernel_census::availability() { return "unavailable: built without CUDA support"; }
kernel_census::~kernel_census() = default;
void kernel_census::begin() {}
std::vector<kernel_launch> kernel_census::end() { return {}; }
void kernel_census::stop() {}

}  // namespace cudal1
