#include "optimize/prompt.h"

#include <cstdlib>
#include <sstream>

#include <gtest/gtest.h>

#include "base/fs.h"

namespace cudal1 {
namespace {

using nlohmann::json;

const std::string kTemplates = CUDAL1_SOURCE_DIR "/data/prompts";
const std::string kGoldenDir = CUDAL1_SOURCE_DIR "/tests/golden";

const char* kReference = R"(import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return x * torch.sigmoid(x) * self.scale


def get_inputs():
    return [torch.randn(16384, 16384)]


def get_init_inputs():
    return [16384]
)";

// The swish task on an H200, as card_from_judgment makes it.
task_card swish_card(const std::string& backend) {
  task_card c;
  c.name = "examples/swish";
  c.reference_code = kReference;
  const long rows = backend == "cuda" ? 16384 : 256, cols = backend == "cuda" ? 16384 : 1024;
  c.inputs = {{"arg0", "f32", {rows, cols}, ""}};
  c.params = {{"scale", "f32", {cols}, ""}};
  c.outputs = {{"out0", "f32", {rows, cols}, ""}};
  c.backend = backend;
  if (backend == "cpu") c.profile = "cpu";
  if (backend == "cuda") {
    c.device = "NVIDIA H200";
    c.bandwidth_gb_s = 4213.7;
    c.matrix_tflops = 668.2;
    c.reference_ms = 2.3514;
    c.floor_ms = 0.5098;
  } else {
    c.device = "AMD EPYC";
    c.bandwidth_gb_s = 17.52;
    c.matrix_tflops = 0.003003;
    c.reference_ms = 0.5826;
    c.floor_ms = 0.1199;
  }
  return c;
}

kernel_entry entry(const std::string& format, double score, const std::string& code, const std::string& analysis,
                   const std::string& summary, const std::string& verdict = "correct") {
  kernel_entry e;
  e.candidate_hash = "hash-" + std::to_string(score);
  e.format = format;
  e.verdict = verdict;
  e.score = score;
  e.code = code;
  e.analysis = analysis;
  e.summary = summary;
  return e;
}

// 46 lines, so the failure is cut at 40.
std::string long_code(const std::string& comment) {
  std::string out;
  for (int i = 1; i <= 46; ++i) out += comment + " line " + std::to_string(i) + "\n";
  return out;
}

const char* kFusedCuda = R"(#include <cudal1/abi.h>
#include <cuda_runtime.h>

__global__ void swish(const float4* __restrict__ x, const float4* __restrict__ s, float4* __restrict__ y,
                      int64_t rows, int64_t cols) {
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < cols; c += (int64_t)gridDim.x * blockDim.x) {
    const float4 k = s[c];
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
      float4 v = x[r * cols + c];
      v.x = v.x / (1.0f + __expf(-v.x)) * k.x;
      v.y = v.y / (1.0f + __expf(-v.y)) * k.y;
      v.z = v.z / (1.0f + __expf(-v.z)) * k.z;
      v.w = v.w / (1.0f + __expf(-v.w)) * k.w;
      y[r * cols + c] = v;
    }
  }
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int,
                   void* stream) {
  const int64_t cols = args[0].shape[1] / 4, rows = args[0].shape[0];
  swish<<<dim3((unsigned)((cols + 255) / 256), 1024), 256, 0, (cudaStream_t)stream>>>(
      (const float4*)args[0].data, (const float4*)params[0].data, (float4*)outs[0].data, rows, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
)";

const char* kScalarCuda = R"(#include <cudal1/abi.h>
#include <cuda_runtime.h>

__global__ void swish(const float* x, const float* s, float* y, int64_t n, int64_t cols) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / (1.0f + expf(-x[i])) * s[i % cols];
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int,
                   void* stream) {
  const int64_t n = cudal1_numel(&args[0]), cols = args[0].shape[1];
  swish<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
      (const float*)args[0].data, (const float*)params[0].data, (float*)outs[0].data, n, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
)";

const char* kFusedAnalysis = R"(## Performance Analysis
The reference launches three kernels and moves the 1 GiB tensor seven times.

## Algorithm Design
One fused pass: read x once as float4, write y once; the scale is loaded once per column.

## Code Implementation
)";

const char* kCppAnalysis = R"(## Performance Analysis
PyTorch makes three passes over x (sigmoid, two multiplies), each reading and writing 1 MiB: memory-bound.

## Algorithm Design
One pass per row with the scale indexed by column; the loop vectorizes under -march=native.

## Code Implementation
)";

const char* kFusedCpp = R"(#include <cudal1/abi.h>

#include <cmath>

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int,
                   void*) {
  const int64_t cols = args[0].shape[1], rows = args[0].shape[0];
  const float* x = static_cast<const float*>(args[0].data);
  const float* s = static_cast<const float*>(params[0].data);
  float* y = static_cast<float*>(outs[0].data);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const float v = x[r * cols + c];
      y[r * cols + c] = v / (1.0f + std::exp(-v)) * s[c];
    }
  return 0;
}
)";

const char* kModelNewInline = R"PY(import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>

__global__ void swish_kernel(const float* __restrict__ x, const float* __restrict__ s, float* __restrict__ y,
                             int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i] / (1.0f + __expf(-x[i])) * s[i % cols];
}

torch::Tensor swish(torch::Tensor x, torch::Tensor s) {
  auto y = torch::empty_like(x);
  const int64_t n = x.numel();
  swish_kernel<<<(unsigned)std::min<int64_t>((n + 255) / 256, 4224), 256>>>(
      x.data_ptr<float>(), s.data_ptr<float>(), y.data_ptr<float>(), n, s.numel());
  return y;
}
"""
ext = load_inline(name="swish_ext", cpp_sources=["torch::Tensor swish(torch::Tensor x, torch::Tensor s);"],
                  cuda_sources=[cuda_source], functions=["swish"], extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return ext.swish(x, self.scale)
)PY";

const char* kModelNewTorch = R"(import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return F.silu(x) * self.scale
)";

struct fixture {
  task_card card;
  std::vector<kernel_entry> exemplars, failures;
};

// Two exemplars (given worst first: the prompt sorts them) and one failure.
fixture golden_fixture(const std::string& format) {
  fixture f;
  f.card = swish_card(format == "cpp" ? "cpu" : "cuda");
  if (format == "cuda") {
    f.exemplars = {entry("cuda", 1.48, kScalarCuda, "",
                         "correct, 1.480x over the reference (1.589 ms against 2.351 ms); at 32% of the "
                         "speed-of-light floor (0.5098 ms); kernels launched: swish [candidate, 1x]"),
                   entry("cuda", 2.31, kFusedCuda, kFusedAnalysis,
                         "correct, 2.310x over the reference (1.018 ms against 2.351 ms); at 50% of the "
                         "speed-of-light floor (0.5098 ms); kernels launched: swish [candidate, 1x]")};
    f.failures = {entry("cuda", 0, long_code("//"), "",
                        "incorrect; failed correctness: out0 differs at [0, 16380]: 0.731 expected, got nan "
                        "(the last columns were never written)",
                        "incorrect")};
  } else if (format == "cpp") {
    f.exemplars = {entry("reference", 1.0, kReference, "", "the PyTorch reference (the baseline, 1.0x)"),
                   entry("cpp", 1.87, kFusedCpp, kCppAnalysis,
                         "correct, 1.870x over the reference (0.3115 ms against 0.5825 ms); at 38% of the "
                         "speed-of-light floor (0.1199 ms)")};
    f.failures = {entry("cpp", 0, long_code("//"), "", "compile_error; examples/swish.cpp:12: 'expf4' was not declared",
                        "compile_error")};
  } else {
    f.exemplars = {entry("modelnew", 1.21, kModelNewTorch, "",
                         "correct, 1.210x over the reference (1.943 ms against 2.351 ms); at 26% of the "
                         "speed-of-light floor (0.5098 ms)"),
                   entry("modelnew", 2.05, kModelNewInline, kFusedAnalysis,
                         "correct, 2.050x over the reference (1.147 ms against 2.351 ms); at 44% of the "
                         "speed-of-light floor (0.5098 ms); kernels launched: swish_kernel [candidate, 1x]")};
    f.failures = {entry("modelnew", 0, long_code("#"), "",
                        "rejected; hack output_caching: the outputs did not change when the inputs did", "rejected")};
  }
  return f;
}

std::string golden_text(const prompt_text& p) { return "=== system ===\n" + p.system + "=== user ===\n" + p.user; }

// Compares with tests/golden/<name>; CUDAL1_UPDATE_GOLDEN=1 rewrites it.
void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = kGoldenDir + "/" + name;
  if (env_or("CUDAL1_UPDATE_GOLDEN", "") == "1") {
    ASSERT_TRUE(make_dirs(kGoldenDir).ok());
    ASSERT_TRUE(write_file_atomic(path, actual).ok()) << path;
    return;
  }
  auto expected = read_file(path);
  ASSERT_TRUE(expected.ok()) << expected.message() << "\n(create it: CUDAL1_UPDATE_GOLDEN=1 cudal1_tests)";
  if (*expected == actual) return;
  std::istringstream e(*expected), a(actual);
  std::string el, al;
  int line = 1;
  for (;; ++line) {
    const bool he = static_cast<bool>(std::getline(e, el)), ha = static_cast<bool>(std::getline(a, al));
    if (!he && !ha) break;
    if (he != ha || el != al) {
      ADD_FAILURE() << path << ":" << line << ": the rendered prompt differs from the golden file\n"
                    << "  golden:   " << (he ? "\"" + el + "\"" : "(end of file)") << "\n"
                    << "  rendered: " << (ha ? "\"" + al + "\"" : "(end of file)") << "\n"
                    << "If the change is intended, regenerate the golden files and review their diff:\n"
                    << "  CUDAL1_UPDATE_GOLDEN=1 cudal1_tests --gtest_filter='Prompt*'";
      return;
    }
  }
  ADD_FAILURE() << path << ": differs only in line endings";
}

prompt_text render_ok(const fixture& f, const std::string& format) {
  auto p = render_prompt(kTemplates, f.card, format, f.exemplars, f.failures);
  EXPECT_TRUE(p.ok()) << p.message();
  return p.ok() ? *p : prompt_text{};
}

TEST(PromptTest, GoldenCuda) { expect_golden("prompt_cuda.txt", golden_text(render_ok(golden_fixture("cuda"), "cuda"))); }

TEST(PromptTest, GoldenCpp) { expect_golden("prompt_cpp.txt", golden_text(render_ok(golden_fixture("cpp"), "cpp"))); }

TEST(PromptTest, GoldenModelNew) {
  expect_golden("prompt_modelnew.txt", golden_text(render_ok(golden_fixture("modelnew"), "modelnew")));
}

TEST(PromptTest, RequiredSectionsAndRules) {
  for (const char* format : {"cuda", "cpp", "modelnew"}) {
    const prompt_text p = render_ok(golden_fixture(format), format);
    for (const char* heading : {"`## Performance Analysis`", "`## Algorithm Design`", "`## Code Implementation`"})
      EXPECT_NE(p.user.find(heading), std::string::npos) << format << ": " << heading;
    EXPECT_NE(p.user.find("No caching"), std::string::npos) << format;
    EXPECT_NE(p.user.find("Float32 stays float32"), std::string::npos) << format;
    EXPECT_NE(p.user.find("  - arg0: float32 ["), std::string::npos) << format;
    EXPECT_NE(p.user.find("  - scale: float32 ["), std::string::npos) << format;
    EXPECT_EQ(p.user.find("f32 ["), std::string::npos) << format;
    // The analyses' own headings sit below the prompt's.
    EXPECT_EQ(p.user.find("\n## Performance Analysis"), std::string::npos) << format;
    EXPECT_NE(p.user.find("\n#### Performance Analysis"), std::string::npos) << format;
    EXPECT_FALSE(p.system.empty());
  }
  EXPECT_NE(render_ok(golden_fixture("cuda"), "cuda").user.find("cudal1_forward"), std::string::npos);
  EXPECT_NE(render_ok(golden_fixture("modelnew"), "modelnew").user.find("class ModelNew(nn.Module)"), std::string::npos);
}

TEST(PromptTest, ExemplarsBestFirstFailuresCut) {
  const prompt_text p = render_ok(golden_fixture("cuda"), "cuda");
  const size_t best = p.user.find("### Implementation 1: 2.31x"), next = p.user.find("### Implementation 2: 1.48x");
  ASSERT_NE(best, std::string::npos);
  ASSERT_NE(next, std::string::npos);
  EXPECT_LT(best, next);
  EXPECT_NE(p.user.find("// line 40\n"), std::string::npos);
  EXPECT_EQ(p.user.find("// line 41\n"), std::string::npos);
  EXPECT_NE(p.user.find("... (6 more lines not shown)"), std::string::npos);
}

TEST(PromptTest, ReferenceExemplarPointsToTheReferenceCode) {
  const prompt_text p = render_ok(golden_fixture("cpp"), "cpp");
  EXPECT_NE(p.user.find("### Implementation 2: 1.00x"), std::string::npos);
  EXPECT_NE(p.user.find("This is the reference code above."), std::string::npos);
  // The reference's source is shown once.
  const size_t first = p.user.find("def get_init_inputs");
  EXPECT_EQ(p.user.find("def get_init_inputs", first + 1), std::string::npos);
}

TEST(PromptTest, NoExemplarsNoFailures) {
  auto p = render_prompt(kTemplates, swish_card("cuda"), "cuda", {}, {});
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->user.find("Earlier correct implementations"), std::string::npos);
  EXPECT_EQ(p->user.find("Failed attempt"), std::string::npos);
  EXPECT_NE(p->user.find("where the reference spends its time"), std::string::npos);
}

TEST(PromptTest, CodeIsNotEscaped) {
  const std::string code =
      "// a < b && c > d, \"quoted\" 'single' {{not_a_tag}} {{{nor_this}}} {{#section}}{{/section}}\n"
      "template <typename T> T f(T a) { return a & 1 ? a : T{}; }\n"
      "/* ``` a fence inside the code */";
  task_card card = swish_card("cuda");
  card.reference_code = "x = a < b and c & d  # {{ref}}";
  card.name = "level1/<odd> & {{name}}";
  const std::vector<kernel_entry> ex = {entry("cuda", 1.5, code, "analysis with <html> & {{tags}}", "judge <saw> & more")};
  const std::vector<kernel_entry> fail = {entry("cuda", 0, code, "", "incorrect: x < y & {{z}}", "incorrect")};
  auto p = render_prompt(kTemplates, card, "cuda", ex, fail);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_NE(p->user.find(code), std::string::npos);
  EXPECT_NE(p->user.find("x = a < b and c & d  # {{ref}}"), std::string::npos);
  EXPECT_NE(p->user.find("# Task: level1/<odd> & {{name}}"), std::string::npos);
  EXPECT_NE(p->user.find("analysis with <html> & {{tags}}"), std::string::npos);
  EXPECT_NE(p->user.find("Judge: judge <saw> & more"), std::string::npos);
  EXPECT_NE(p->user.find("Judge: incorrect: x < y & {{z}}"), std::string::npos);
  EXPECT_EQ(p->user.find("&lt;"), std::string::npos);
  EXPECT_EQ(p->user.find("&amp;"), std::string::npos);
  EXPECT_EQ(p->user.find("&quot;"), std::string::npos);
  // The code holds ```: its block is fenced with four backticks.
  EXPECT_NE(p->user.find("````cuda\n" + code + "\n````"), std::string::npos);
}

TEST(PromptTest, AnalysisHeadingsNestedOutsideCode) {
  const std::string analysis =
      "## Performance Analysis\nThree passes.\n```python\n# a comment, not a heading\nx = 1\n```\n"
      "### Detail\nMore.\n\n## Code Implementation\n\n";
  auto p = render_prompt(kTemplates, swish_card("cuda"), "cuda", {entry("cuda", 1.5, kScalarCuda, analysis, "")}, {});
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_NE(p->user.find("Author's analysis:\n\n#### Performance Analysis\nThree passes.\n```python\n"
                         "# a comment, not a heading\nx = 1\n```\n##### Detail\nMore.\n\n```cuda\n"),
            std::string::npos)
      << p->user;
  EXPECT_EQ(p->user.find("Code Implementation\n\n```cuda"), std::string::npos);
}

TEST(PromptTest, MissingTemplatesDir) {
  const std::string dir = "/nonexistent/cudal1/prompts";
  auto p = render_prompt(dir, swish_card("cuda"), "cuda", {}, {});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find(dir), std::string::npos) << p.message();
  EXPECT_NE(p.message().find("not found"), std::string::npos) << p.message();
}

TEST(PromptTest, MissingOrBrokenTemplate) {
  auto dir = make_temp_dir("cudal1-prompt-test");
  ASSERT_TRUE(dir.ok()) << dir.message();
  ASSERT_TRUE(write_file_atomic(*dir + "/system.mustache", "You are {{#unclosed}}an engineer.").ok());
  auto p = render_prompt(*dir, swish_card("cuda"), "cuda", {}, {});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find(*dir + "/system.mustache"), std::string::npos) << p.message();
  EXPECT_NE(p.message().find("Unclosed section"), std::string::npos) << p.message();
  ASSERT_TRUE(write_file_atomic(*dir + "/system.mustache", "You are an engineer.").ok());
  p = render_prompt(*dir, swish_card("cuda"), "cuda", {}, {});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find(*dir + "/user.mustache"), std::string::npos) << p.message();
  remove_tree(*dir);
}

TEST(PromptTest, UnknownFormat) {
  auto p = render_prompt(kTemplates, swish_card("cuda"), "triton", {}, {});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("'triton'"), std::string::npos) << p.message();
}

TEST(PromptTest, ScalarArgumentsAndPrecision) {
  task_card card = swish_card("cuda");
  card.inputs.push_back({"arg1", "f64", {}, "float"});
  card.precision = "bf16";
  card.baseline = "compile";
  auto p = render_prompt(kTemplates, card, "cuda", {}, {});
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_NE(p->user.find("arg1: a Python float"), std::string::npos);
  EXPECT_NE(p->user.find("float as `CUDAL1_F64`"), std::string::npos);
  EXPECT_NE(p->user.find("may use bfloat16"), std::string::npos);
  EXPECT_EQ(p->user.find("Float32 stays float32"), std::string::npos);
  EXPECT_NE(p->user.find("ms (torch.compile)"), std::string::npos);
}

// The fields of `cudal1 eval --json` the card reads (the rest trimmed).
const char* kJudgment = R"({
  "backend": "cpu", "baseline": "eager", "verdict": "correct", "speedup": 0.4177, "profile": "cpu",
  "device": {"backend": "cpu", "l2_bytes": 33554432, "name": "AMD EPYC"},
  "precision": {"policy": "fp32", "reference": "float64", "reference_rel_norm": 5.2e-08},
  "reference": {"median_ms": 0.58251, "mean_ms": 0.586, "samples": 29},
  "speed_of_light": {"bandwidth_bytes_per_s": 17521908043.0, "bytes": 2101248, "calibration": "cached",
                     "floor_ms": 0.11992, "flops": null, "flops_source": "counted", "fraction": 0.086,
                     "peak_flops_per_s": 3003313529.65},
  "signature": {"inputs": [{"name": "arg0", "dtype": "f32", "shape": [256, 1024], "nbytes": 1048576, "offset": 0},
                           {"name": "arg1", "dtype": "f64", "shape": [], "nbytes": 8, "scalar": "float"}],
                "outputs": [{"name": "out0", "dtype": "f32", "shape": [256, 1024]}],
                "params": [{"name": "scale", "dtype": "f32", "shape": [1024]}]}
})";

TEST(PromptTest, CardFromJudgment) {
  const task_card c = card_from_judgment("examples/swish", kReference, json::parse(kJudgment));
  EXPECT_EQ(c.name, "examples/swish");
  EXPECT_EQ(c.reference_code, kReference);
  EXPECT_EQ(c.device, "AMD EPYC");
  EXPECT_EQ(c.backend, "cpu");
  EXPECT_EQ(c.baseline, "eager");
  EXPECT_EQ(c.precision, "fp32");
  EXPECT_EQ(c.profile, "cpu");
  ASSERT_TRUE(c.bandwidth_gb_s && c.matrix_tflops && c.reference_ms && c.floor_ms);
  EXPECT_NEAR(*c.bandwidth_gb_s, 17.52, 0.01);
  EXPECT_NEAR(*c.matrix_tflops, 0.003, 1e-5);
  EXPECT_DOUBLE_EQ(*c.reference_ms, 0.58251);
  EXPECT_DOUBLE_EQ(*c.floor_ms, 0.11992);
  ASSERT_EQ(c.inputs.size(), 2u);
  EXPECT_EQ(c.inputs[0].name, "arg0");
  EXPECT_EQ(c.inputs[0].dtype, "f32");
  EXPECT_EQ(c.inputs[0].shape, (std::vector<long>{256, 1024}));
  EXPECT_EQ(c.inputs[1].scalar, "float");
  EXPECT_TRUE(c.inputs[1].shape.empty());
  ASSERT_EQ(c.params.size(), 1u);
  EXPECT_EQ(c.params[0].name, "scale");
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].shape, (std::vector<long>{256, 1024}));

  auto p = render_prompt(kTemplates, c, "cpp", {}, {});
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_NE(p->user.find("- Device: AMD EPYC (CPU backend). Measured: copy bandwidth 17.5 GB/s, matrix rate 3.00 GFLOP/s."),
            std::string::npos)
      << p->user;
  EXPECT_NE(p->user.find("- Size profile \"cpu\": the shapes below"), std::string::npos);
  EXPECT_NE(p->user.find("  - arg0: float32 [256, 1024]\n  - arg1: a Python float\n"), std::string::npos);
  EXPECT_NE(p->user.find("- Reference time: 0.583 ms (PyTorch eager)."), std::string::npos);
  EXPECT_NE(p->user.find("- Speed-of-light floor: 0.120 ms"), std::string::npos);
  EXPECT_NE(p->user.find("That is 21% of the reference's time: no implementation can be more than 4.9x faster."),
            std::string::npos);
}

TEST(PromptTest, CardToleratesMissingFields) {
  task_card c = card_from_judgment("t", "code", json::object());
  EXPECT_TRUE(c.inputs.empty() && c.params.empty() && c.outputs.empty());
  EXPECT_TRUE(c.device.empty() && c.profile.empty());
  EXPECT_FALSE(c.reference_ms || c.floor_ms || c.bandwidth_gb_s || c.matrix_tflops);
  EXPECT_EQ(c.precision, "fp32");
  EXPECT_EQ(c.baseline, "eager");
  // Wrong types and nulls are skipped, not thrown on.
  c = card_from_judgment("t", "code", json::parse(R"({"signature": null, "device": "gpu", "reference": {"median_ms": "1"},
      "speed_of_light": null, "precision": [], "backend": 3})"));
  EXPECT_TRUE(c.inputs.empty());
  EXPECT_TRUE(c.device.empty());
  EXPECT_FALSE(c.reference_ms);
  c = card_from_judgment("t", "code", json::parse(R"({"signature": {"inputs": [1, {"name": "arg0", "shape": "big"}]}})"));
  ASSERT_EQ(c.inputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].name, "arg0");
  EXPECT_TRUE(c.inputs[0].shape.empty());
  // The card renders with nothing known.
  auto p = render_prompt(kTemplates, c, "cuda", {}, {});
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_NE(p->user.find("- Parameters and buffers, in state_dict order: none"), std::string::npos);
  EXPECT_EQ(p->user.find("Reference time"), std::string::npos);
}

}  // namespace
}  // namespace cudal1
