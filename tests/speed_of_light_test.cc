#include "audit/speed_of_light.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace cudal1 {
namespace {

TEST(SpeedOfLight, BytesOverBandwidthWhenMemoryBound) {
  sol_inputs in;
  in.bytes = 2ull << 30;                 // 1 GiB in, 1 GiB out
  in.bandwidth_bytes_per_s = 4.0e12;     // an H200's copy
  in.flops = 1e9;
  in.peak_flops_per_s = 50e12;
  EXPECT_NEAR(*sol_floor_ms(in), 2.0 * (1 << 30) / 4.0e12 * 1e3, 1e-9);
}

TEST(SpeedOfLight, FlopsOverPeakWhenComputeBound) {
  sol_inputs in;
  in.bytes = 3 * 8192ull * 8192 * 4;  // an 8192^3 fp32 matrix product
  in.flops = 2.0 * 8192.0 * 8192 * 8192;
  in.bandwidth_bytes_per_s = 4.0e12;
  in.peak_flops_per_s = 50e12;
  EXPECT_NEAR(*sol_floor_ms(in), in.flops.value() / 50e12 * 1e3, 1e-9);
}

TEST(SpeedOfLight, NoBandwidthNoFloorAndFlopsOptional) {
  sol_inputs in;
  in.bytes = 100;
  EXPECT_FALSE(sol_floor_ms(in).has_value());
  in.bandwidth_bytes_per_s = 100.0;
  EXPECT_DOUBLE_EQ(*sol_floor_ms(in), 1000.0);
}

TEST(SpeedOfLight, ImpossibleOnlyBeyondTheSlack) {
  EXPECT_FALSE(faster_than_light(1.0, 1.5));
  EXPECT_FALSE(faster_than_light(1.0, 0.85));  // a read-mostly kernel beating a copy
  EXPECT_TRUE(faster_than_light(1.0, 0.5));
}

TEST(SpeedOfLight, AddsFloorAndFractionToTheFigures) {
  auto sol = nlohmann::json::parse(R"({"bytes": 2000, "flops": 0, "bandwidth_bytes_per_s": 1e6, "calibration": "cached"})");
  auto floor = add_floor(sol, 4.0);  // a 2 ms floor under a 4 ms median
  ASSERT_TRUE(floor.has_value());
  EXPECT_DOUBLE_EQ(*floor, 2.0);
  EXPECT_DOUBLE_EQ(sol["floor_ms"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(sol["fraction"].get<double>(), 0.5);
  EXPECT_EQ(sol["calibration"], "cached");  // the worker's figures stay
  EXPECT_DOUBLE_EQ(add_floor(sol, 0.0).value(), 2.0);
  EXPECT_DOUBLE_EQ(sol["fraction"].get<double>(), 0.0);
  auto unknown = nlohmann::json::parse(R"({"bytes": 2000})");
  EXPECT_FALSE(add_floor(unknown, 4.0).has_value());
  EXPECT_FALSE(unknown.contains("floor_ms"));
}

TEST(SpeedOfLight, ParsesTheReferenceWorkersFigures) {
  auto j = nlohmann::json::parse(R"({"bytes": 4096, "flops": null, "bandwidth_bytes_per_s": 1e9, "peak_flops_per_s": 0})");
  sol_inputs in = parse_sol_inputs(j);
  EXPECT_EQ(in.bytes, 4096u);
  EXPECT_FALSE(in.flops.has_value());
  EXPECT_FALSE(in.peak_flops_per_s.has_value());
  EXPECT_DOUBLE_EQ(*in.bandwidth_bytes_per_s, 1e9);
}

}  // namespace
}  // namespace cudal1
