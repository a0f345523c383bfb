#include "worker/layout.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cudal1/abi.h"

namespace cudal1 {
namespace {

nlohmann::json valid_layout() {
  return nlohmann::json::parse(R"({
    "exchange": {"kind": "file", "path": "/tmp/x", "offset": 0, "bytes": 1024},
    "inputs": [{"name": "arg0", "dtype": "f32", "shape": [4, 8], "offset": 0, "nbytes": 128}],
    "outputs": [{"name": "out0", "dtype": "bf16", "shape": [4, 8], "offset": 256, "nbytes": 64}],
    "params": [{"name": "scale", "dtype": "f64", "shape": [], "offset": 512, "nbytes": 8}]})");
}

TEST(Layout, ParsesAndRoundTrips) {
  auto l = parse_layout(valid_layout());
  ASSERT_TRUE(l.ok()) << l.message();
  EXPECT_EQ(l->inputs[0].shape, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(l->outputs[0].dtype, "bf16");
  EXPECT_TRUE(l->params[0].shape.empty());
  auto again = parse_layout(layout_to_json(*l));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->params[0].offset, 512u);
}

TEST(Layout, RejectsSizeThatDoesNotMatchShape) {
  auto j = valid_layout();
  j["inputs"][0]["nbytes"] = 100;
  EXPECT_FALSE(parse_layout(j).ok());
}

TEST(Layout, RejectsSlotOutsideExchange) {
  auto j = valid_layout();
  j["params"][0]["offset"] = 1024;
  EXPECT_FALSE(parse_layout(j).ok());
}

TEST(Layout, RejectsMisalignedSlot) {
  auto j = valid_layout();
  j["outputs"][0]["offset"] = 260;
  EXPECT_FALSE(parse_layout(j).ok());
}

TEST(Layout, RejectsUnknownDtypeAndMalformedJson) {
  auto j = valid_layout();
  j["inputs"][0]["dtype"] = "complex64";
  EXPECT_FALSE(parse_layout(j).ok());
  EXPECT_FALSE(parse_layout(nlohmann::json::parse(R"({"exchange": {}})")).ok());
}

TEST(Dtypes, MatchTheAbi) {
  EXPECT_EQ(dtype_code("f32"), CUDAL1_F32);
  EXPECT_EQ(dtype_code("bf16"), CUDAL1_BF16);
  EXPECT_EQ(dtype_code("i8"), CUDAL1_I8);
  EXPECT_EQ(dtype_code("nope"), 0);
  EXPECT_EQ(dtype_size("f16"), 2);
  EXPECT_EQ(dtype_size("i64"), 8);
  EXPECT_TRUE(is_floating_dtype("f64"));
  EXPECT_FALSE(is_floating_dtype("bool"));
}

}  // namespace
}  // namespace cudal1
