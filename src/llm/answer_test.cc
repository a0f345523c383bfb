#include "llm/answer.h"

#include <gtest/gtest.h>

#include <string>

namespace cudal1 {
namespace {

// A native candidate's body, short.
const std::string kNative = "#include <cudal1/abi.h>\nint cudal1_forward(const cudal1_tensor* a, int n) { return 0; }\n";
const std::string kModelNew = "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x\n";

std::string block(const std::string& info, const std::string& code, const std::string& fence = "```") {
  return fence + info + "\n" + code + fence + "\n";
}

TEST(ParseAnswer, three_sections_take_the_code_implementation_block) {
  const std::string text = "### 1. Performance Analysis\nThe reference launches three kernels.\n\n"
                           "### 2. Algorithm Design\nFuse them; the inner loop looks like:\n" +
                           block("cuda", "for (int i = 0; i < n; ++i) y[i] = f(x[i]);\n") +
                           "\n### 3. Code Implementation\n" + block("cuda", kNative) + "That is all.\n";
  parsed_answer a = parse_answer(text, "cuda");
  ASSERT_TRUE(a.has_code) << a.problem;
  EXPECT_EQ(a.code, kNative);
  EXPECT_EQ(a.language, "cuda");
  EXPECT_TRUE(a.problem.empty());
  EXPECT_NE(a.analysis.find("Performance Analysis"), std::string::npos);
  EXPECT_NE(a.analysis.find("inner loop"), std::string::npos);  // the snippet stays in the analysis
  EXPECT_NE(a.analysis.find("That is all."), std::string::npos);
  EXPECT_EQ(a.analysis.find("cudal1_forward"), std::string::npos);
}

TEST(ParseAnswer, code_implementation_heading_in_bold_with_a_colon) {
  // The block under the heading wins even though a later block also fits.
  const std::string text = "**3. Code Implementation:**\n" + block("cuda", kNative) + "Usage example:\n" +
                           block("cuda", "// launch it\nint cudal1_forward_wrapper();\n");
  parsed_answer a = parse_answer(text, "cuda");
  ASSERT_TRUE(a.has_code) << a.problem;
  EXPECT_EQ(a.code, kNative);
}

TEST(ParseAnswer, a_sentence_naming_the_section_is_not_a_heading) {
  const std::string text = "In the code implementation section below I fuse the two kernels.\n" +
                           block("cuda", "// first draft, discarded\n") + block("cuda", kNative);
  parsed_answer a = parse_answer(text, "cuda");
  ASSERT_TRUE(a.has_code) << a.problem;
  EXPECT_EQ(a.code, kNative);  // the last fitting block, not the first after the sentence
}

TEST(ParseAnswer, several_blocks_without_heading_take_the_last_that_fits) {
  const std::string first = "int cudal1_forward() { return 1; }  // slow\n";
  const std::string text = "Try this:\n" + block("cuda", first) + "Better:\n" + block("cuda", kNative) +
                           "And to test it:\n" + block("bash", "nvcc -O3 kernel.cu -o kernel && ./kernel --iterations 1000\n");
  parsed_answer a = parse_answer(text, "cuda");
  ASSERT_TRUE(a.has_code) << a.problem;
  EXPECT_EQ(a.code, kNative);
  EXPECT_NE(a.analysis.find("nvcc"), std::string::npos);
  EXPECT_NE(a.analysis.find(first), std::string::npos);
}

TEST(ParseAnswer, unlabelled_block_fits_any_format) {
  parsed_answer native = parse_answer("Here:\n" + block("", kNative), "cuda");
  ASSERT_TRUE(native.has_code) << native.problem;
  EXPECT_EQ(native.language, "");
  EXPECT_EQ(native.code, kNative);
  EXPECT_EQ(native.analysis, "Here:");
  parsed_answer python = parse_answer(block("", kModelNew), "modelnew");
  ASSERT_TRUE(python.has_code) << python.problem;
  EXPECT_EQ(python.code, kModelNew);
}

TEST(ParseAnswer, fitting_language_beats_a_longer_block) {
  const std::string long_python = kModelNew + "# " + std::string(500, 'x') + "\n";
  const std::string text = block("python", long_python) + block("c++", kNative);
  parsed_answer a = parse_answer(text, "cpp");
  ASSERT_TRUE(a.has_code) << a.problem;
  EXPECT_EQ(a.language, "c++");
  EXPECT_EQ(a.code, kNative);
  parsed_answer m = parse_answer(text, "modelnew");
  ASSERT_TRUE(m.has_code) << m.problem;
  EXPECT_EQ(m.language, "python");
  EXPECT_EQ(m.code, long_python);
}

TEST(ParseAnswer, no_fitting_language_falls_back_to_the_longest_block) {
  const std::string text = block("text", "see below\n") + block("plaintext", kNative) + block("text", "done\n");
  parsed_answer a = parse_answer(text, "cuda");
  ASSERT_TRUE(a.has_code) << a.problem;
  EXPECT_EQ(a.language, "plaintext");
  EXPECT_EQ(a.code, kNative);
}

TEST(ParseAnswer, truncated_final_fence_is_no_code) {
  const std::string text = "### Code Implementation\n```cuda\n" + kNative + "__global__ void k(float* y) {\n  y[threadIdx.x] =";
  parsed_answer a = parse_answer(text, "cuda");
  EXPECT_FALSE(a.has_code);
  EXPECT_NE(a.problem.find("truncated"), std::string::npos) << a.problem;
  EXPECT_TRUE(a.code.empty());
}

TEST(ParseAnswer, truncated_after_a_complete_block_is_still_no_code) {
  const std::string text = block("cuda", kNative) + "A faster version:\n```cuda\nint cudal1_forward(";
  parsed_answer a = parse_answer(text, "cuda");
  EXPECT_FALSE(a.has_code);
  EXPECT_NE(a.problem.find("never closed"), std::string::npos) << a.problem;
}

TEST(ParseAnswer, no_code_block_says_so) {
  parsed_answer a = parse_answer("I cannot improve this kernel further; it is memory bound.", "cuda");
  EXPECT_FALSE(a.has_code);
  EXPECT_EQ(a.problem, "no fenced code block in the answer");
  EXPECT_EQ(a.analysis, "I cannot improve this kernel further; it is memory bound.");
  // Inline code (one or two backticks) is not a fence.
  EXPECT_FALSE(parse_answer("Call `cudal1_forward` with ``care``.", "cuda").has_code);
}

TEST(ParseAnswer, empty_block_says_so) {
  parsed_answer a = parse_answer("```cuda\n\n   \n```\n", "cuda");
  EXPECT_FALSE(a.has_code);
  EXPECT_EQ(a.problem, "the code block is empty");
}

TEST(ParseAnswer, wrong_language_for_native_format) {
  parsed_answer a = parse_answer("Here is the model:\n" + block("python", kModelNew), "cuda");
  EXPECT_FALSE(a.has_code);
  EXPECT_NE(a.problem.find("(python) does not define cudal1_forward"), std::string::npos) << a.problem;
  EXPECT_EQ(a.code, kModelNew);  // kept for the record
}

TEST(ParseAnswer, modelnew_needs_class_modelnew) {
  const std::string plain = "import torch\ndef forward(x):\n    return x\n";
  parsed_answer missing = parse_answer(block("python", plain), "modelnew");
  EXPECT_FALSE(missing.has_code);
  EXPECT_NE(missing.problem.find("class ModelNew"), std::string::npos) << missing.problem;
  // A similar name is not the class.
  EXPECT_FALSE(parse_answer(block("py", "class ModelNewer:\n    pass\n"), "modelnew").has_code);
  parsed_answer ok = parse_answer(block("py", kModelNew), "modelnew");
  ASSERT_TRUE(ok.has_code) << ok.problem;
  EXPECT_EQ(ok.language, "py");
}

TEST(ParseAnswer, native_needs_cudal1_forward) {
  parsed_answer a = parse_answer(block("cuda", "__global__ void k(float* y) { y[0] = 1; }\n"), "cuda");
  EXPECT_FALSE(a.has_code);
  EXPECT_NE(a.problem.find("cudal1_forward"), std::string::npos);
  // A ModelNew that happens to hold CUDA source fails the native check too.
  EXPECT_FALSE(parse_answer(block("cuda", "class ModelNew: pass\n"), "cpp").has_code);
}

TEST(ParseAnswer, tilde_fences_and_inner_backticks) {
  // A ``` line inside a ~~~ block is code, not a fence.
  const std::string code = "// Markdown in a comment:\n// ```\n" + kNative;
  parsed_answer a = parse_answer("~~~cuda\n" + code + "~~~\n", "cuda");
  ASSERT_TRUE(a.has_code) << a.problem;
  EXPECT_EQ(a.code, code);
  EXPECT_EQ(a.language, "cuda");
}

TEST(ParseAnswer, longer_fence_closes_only_with_as_many) {
  const std::string code = "```\n" + kNative;
  parsed_answer a = parse_answer("````cpp\n" + code + "````\n", "cpp");
  ASSERT_TRUE(a.has_code) << a.problem;
  EXPECT_EQ(a.code, code);
}

TEST(ParseAnswer, info_string_is_lowered_and_cut_at_the_first_word) {
  parsed_answer a = parse_answer("```CUDA title=\"kernel.cu\"\n" + kNative + "```", "cuda");
  ASSERT_TRUE(a.has_code) << a.problem;
  EXPECT_EQ(a.language, "cuda");
  EXPECT_EQ(a.code, kNative);  // a closing fence without a newline at the end still closes
}

TEST(ParseAnswer, crlf_lines_and_indented_fences) {
  const std::string text = "Answer:\r\n  ```cpp\r\nint cudal1_forward() { return 0; }\r\n  ```\r\n";
  parsed_answer a = parse_answer(text, "cpp");
  ASSERT_TRUE(a.has_code) << a.problem;
  EXPECT_EQ(a.code, "int cudal1_forward() { return 0; }\n");
}

TEST(ParseAnswer, unknown_format_is_a_problem) {
  parsed_answer a = parse_answer(block("cuda", kNative), "triton");
  EXPECT_FALSE(a.has_code);
  EXPECT_NE(a.problem.find("triton"), std::string::npos);
}

}  // namespace
}  // namespace cudal1
