#include "serve/requests.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "base/fs.h"

namespace cudal1 {
namespace {

using nlohmann::json;

class RequestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = *make_temp_dir("requests-test");
    for (const char* d : {"/level1", "/level2", "/swish"}) std::filesystem::create_directories(root_ + d);
    ASSERT_TRUE(write_file_atomic(root_ + "/level1/softmax.py", "# softmax\n"));
    ASSERT_TRUE(write_file_atomic(root_ + "/level1/relu.py", "# relu one\n"));
    ASSERT_TRUE(write_file_atomic(root_ + "/level2/relu.py", "# relu two\n"));
    ASSERT_TRUE(write_file_atomic(root_ + "/swish/task.py", "# swish\n"));
    auto c = task_catalog::load({root_ + "/level1", root_ + "/level2", root_ + "/swish/task.py"});
    ASSERT_TRUE(c) << c.message();
    catalog_ = *c;
  }
  void TearDown() override { remove_tree(root_); }
  std::string root_;
  task_catalog catalog_;
};

TEST_F(RequestsTest, TasksByFolderAndStemByStemWhenUniqueAndExamplesByFolder) {
  std::string why;
  ASSERT_NE(catalog_.find("level1/softmax", &why), nullptr);
  EXPECT_EQ(catalog_.find("softmax", &why)->name, "level1/softmax");
  EXPECT_EQ(catalog_.find("softmax.py", &why)->name, "level1/softmax");
  EXPECT_EQ(catalog_.find("swish", &why)->name, "swish");
  EXPECT_EQ(catalog_.find("relu", &why), nullptr);
  EXPECT_NE(why.find("ambiguous"), std::string::npos);
  EXPECT_NE(why.find("level2/relu"), std::string::npos);
  EXPECT_EQ(catalog_.find("level2/relu", &why)->source, "# relu two\n");
  EXPECT_EQ(catalog_.find("gelu", &why), nullptr);
  EXPECT_NE(why.find("unknown task"), std::string::npos);
}

TEST_F(RequestsTest, AReferenceNamesItsTaskBySourceTrailingSpaceAside) {
  EXPECT_EQ(catalog_.find_by_source("# relu two\n\n  ")->name, "level2/relu");
  EXPECT_EQ(catalog_.find_by_source("# relu three\n"), nullptr);
}

TEST_F(RequestsTest, MissingFolderIsAnError) {
  EXPECT_FALSE(task_catalog::load({root_ + "/nowhere"}));
  EXPECT_FALSE(task_catalog::load({}));
}

TEST(TakeCodeTest, FormatsCodeBlocksAndLimits) {
  request_limits cuda{1000, "cuda"};
  auto t = std::get<taken_code>(take_code("int cudal1_forward() {}", "", cuda));
  EXPECT_TRUE(t.has_code);
  EXPECT_EQ(t.format, "cuda");
  t = std::get<taken_code>(take_code("import torch\nclass ModelNew: pass\n", "", cuda));
  EXPECT_EQ(t.format, "modelnew");
  // A native answer that mentions the Python class in a comment stays native.
  t = std::get<taken_code>(take_code("// a port of a class ModelNew\nint cudal1_forward() {}", "", cuda));
  EXPECT_EQ(t.format, "cuda");
  t = std::get<taken_code>(take_code("## Code Implementation\n```cuda\nint cudal1_forward() {}\n```\n", "", cuda));
  EXPECT_TRUE(t.has_code);
  EXPECT_EQ(t.code, "int cudal1_forward() {}\n");
  t = std::get<taken_code>(take_code("I cannot write it.", "", cuda));
  EXPECT_FALSE(t.has_code);
  EXPECT_FALSE(t.problem.empty());
  EXPECT_EQ(std::get<request_error>(take_code(std::string(1001, 'x'), "", cuda)).status, 413);
  EXPECT_EQ(std::get<request_error>(take_code("x", "rust", cuda)).status, 400);
  EXPECT_EQ(std::get<request_error>(take_code("x", "cpp", cuda)).status, 422);
}

TEST(CheckOptionsTest, OnlyTheSafeOptionsWithCheckedValues) {
  EXPECT_EQ(std::get<json>(check_options({{"profile", "p100us"}, {"precision", "bf16"}, {"trials", 3}})).size(), 3u);
  // The inputs' seed is the judge's secret; the reference's seal is the server's to set.
  EXPECT_TRUE(std::holds_alternative<request_error>(check_options({{"seed", 7}})));
  EXPECT_TRUE(std::holds_alternative<request_error>(check_options({{"untrusted_task", false}})));
  EXPECT_TRUE(std::holds_alternative<request_error>(check_options({{"time_budget", 9}})));
  EXPECT_TRUE(std::holds_alternative<request_error>(check_options({{"trials", 0}})));
  EXPECT_TRUE(std::holds_alternative<request_error>(check_options({{"precision", "fp8"}})));
  EXPECT_TRUE(std::holds_alternative<request_error>(check_options(json::array())));
}

}  // namespace
}  // namespace cudal1
