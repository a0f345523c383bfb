#include "base/fs.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace cudal1 {
namespace {

// Sets CUDA_VISIBLE_DEVICES (or unsets it) for one test, and puts back what was there.
class visible_devices {
 public:
  explicit visible_devices(const char* value) {
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) saved_ = v;
    if (value) setenv("CUDA_VISIBLE_DEVICES", value, 1);
    else unsetenv("CUDA_VISIBLE_DEVICES");
  }
  ~visible_devices() {
    if (saved_) setenv("CUDA_VISIBLE_DEVICES", saved_->c_str(), 1);
    else unsetenv("CUDA_VISIBLE_DEVICES");
  }

 private:
  std::optional<std::string> saved_;
};

TEST(JudgedCudaDevice, OneDeviceWhateverTheJudgeSees) {
  { visible_devices v(nullptr); EXPECT_EQ(judged_cuda_device(), "0"); }
  { visible_devices v("3"); EXPECT_EQ(judged_cuda_device(), "3"); }
  { visible_devices v("2,0,1"); EXPECT_EQ(judged_cuda_device(), "2"); }
  { visible_devices v(" 1 , 2"); EXPECT_EQ(judged_cuda_device(), "1"); }
  { visible_devices v("GPU-8f1c2d3e-aaaa-bbbb-cccc-000011112222,GPU-0"); EXPECT_EQ(judged_cuda_device(), "GPU-8f1c2d3e-aaaa-bbbb-cccc-000011112222"); }
  // No device given stays no device: the candidate must not get one the judge was not given.
  { visible_devices v(""); EXPECT_EQ(judged_cuda_device(), ""); }
}

}  // namespace
}  // namespace cudal1
