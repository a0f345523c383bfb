#include "audit/kernel_origin.h"

#include <gtest/gtest.h>

#include <string>

namespace cudal1 {
namespace {

using namespace std::string_literals;

// What a candidate library holds: its kernels' names as NUL-terminated
// strings (the host code registers each kernel by name), among other bytes.
const std::string kLibrary = "\x7f" "ELF junk\0_Z12swish_kernelIfEvPKT_S2_PS0_ll\0more\0my_c_kernel\0"s;

TEST(KernelOrigin, NamesInTheCandidatesLibraryAreItsOwn) {
  EXPECT_EQ(kernel_origin("_Z12swish_kernelIfEvPKT_S2_PS0_ll", kLibrary), "candidate");
  EXPECT_EQ(kernel_origin("my_c_kernel", kLibrary), "candidate");
  // A prefix of a name in the library is not that name.
  EXPECT_NE(kernel_origin("my_c", kLibrary), "candidate");
}

TEST(KernelOrigin, LibraryKernelsByTheirMarks) {
  EXPECT_EQ(kernel_origin("sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8", kLibrary), "cublas");
  EXPECT_EQ(kernel_origin("_ZN7cutlass7Kernel2I24cutlass_80_simt_sgemm_128x128E", kLibrary), "cublas");
  EXPECT_EQ(kernel_origin("_ZN5cudnn3cnn15conv2d_grouped_kernel", kLibrary), "cudnn");
  EXPECT_EQ(kernel_origin("_ZN2at6native29vectorized_elementwise_kernelILi4E", kLibrary), "pytorch");
  EXPECT_EQ(kernel_origin("some_other_kernel", kLibrary), "library");
}

TEST(KernelOrigin, Demangles) {
  EXPECT_EQ(demangle("_Z3addPfS_"), "add(float*, float*)");
  EXPECT_EQ(demangle("plain_name"), "plain_name");
}

TEST(SummarizeCensus, CountsLaunchesStreamsAndOrigins) {
  nlohmann::json launches = nlohmann::json::array({
      {{"name", "my_c_kernel"}, {"stream", 7}, {"launches", 2}},
      {{"name", "my_c_kernel"}, {"stream", 7}, {"launches", 3}},
      {{"name", "sm90_xmma_gemm_x"}, {"stream", 9}, {"launches", 1}},
  });
  nlohmann::json c = summarize_census(launches, kLibrary);
  EXPECT_TRUE(c["custom_kernel"].get<bool>());
  EXPECT_EQ(c["streams"].get<int>(), 2);
  ASSERT_EQ(c["kernels"].size(), 2u);
  EXPECT_EQ(c["kernels"][0]["launches"].get<int>(), 5);
  EXPECT_EQ(c["libraries"], nlohmann::json::array({"cublas"}));
}

TEST(SummarizeCensus, LibraryOnlyOrNothingIsNotCustom) {
  EXPECT_FALSE(summarize_census(nlohmann::json::array({{{"name", "sm90_xmma_gemm_x"}, {"stream", 1}}}), kLibrary)["custom_kernel"]
                   .get<bool>());
  EXPECT_FALSE(summarize_census(nlohmann::json::array(), kLibrary)["custom_kernel"].get<bool>());
}

TEST(CensusListing, NamesAndOriginsOrNoKernels) {
  nlohmann::json c = summarize_census(nlohmann::json::array({{{"name", "_Z3addPfS_"}, {"stream", 1}}}), kLibrary);
  EXPECT_EQ(census_listing(c), "add(float*, float*) (library)");
  EXPECT_EQ(census_listing(summarize_census(nlohmann::json::array(), kLibrary)), "no kernels");
}

}  // namespace
}  // namespace cudal1
