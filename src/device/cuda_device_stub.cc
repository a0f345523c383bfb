// Built when cudal1 is configured without CUDA: the cuda backend reports
// itself unavailable instead of failing to link.
#include "device/device.h"

namespace cudal1 {

result<std::unique_ptr<device>> make_cuda_device() {
  return make_error("this cudal1 was built without CUDA support (no nvcc at configure time)");
}

}  // namespace cudal1
