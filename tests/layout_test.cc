#include "worker/layout.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cudal1/abi.h"

namespace cudal1 {
namespace {

nlohmann::json valid_layout() {
  return nlohmann::json::parse(R"({
    "exchange": {"kind": "file", "path": "/tmp/x", "offset": 0, "bytes": 5120},
    "arenas": {"offsets": [1024, 3072], "bytes": 2048, "max_shift": 1024},
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
  EXPECT_EQ(again->arenas.offsets[1], 3072u);
  // A call's output in arena 1 at a shift of 512: the arena, the shift, its slot.
  EXPECT_EQ(arena_offset(*again, 1, 512, again->outputs[0]), 3072u + 512u + 256u);
}

TEST(Layout, RejectsArenasOutsideTheExchangeOrTooSmall) {
  auto j = valid_layout();
  j["arenas"]["offsets"][1] = 4096;  // 4096 + 2048 > 5120
  EXPECT_FALSE(parse_layout(j).ok());
  j = valid_layout();
  j["arenas"]["max_shift"] = 2000;  // the slots (to 320) and the shift do not fit in 2048
  EXPECT_FALSE(parse_layout(j).ok());
  j = valid_layout();
  j.erase("arenas");
  EXPECT_FALSE(parse_layout(j).ok());
}

TEST(Layout, RejectsSizeThatDoesNotMatchShape) {
  auto j = valid_layout();
  j["inputs"][0]["nbytes"] = 100;
  EXPECT_FALSE(parse_layout(j).ok());
}

TEST(Layout, RejectsSlotOutsideExchange) {
  auto j = valid_layout();
  j["params"][0]["offset"] = 5120;
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
