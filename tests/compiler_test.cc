#include "compile/compiler.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/elf.h"
#include "base/fs.h"

namespace cudal1 {
namespace {

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

TEST(CompilerCommand, CudaTargetsTheDevice) {
  compile_request req;
  req.backend = "cuda";
  req.cc_major = 9;
  req.cc_minor = 0;
  req.include_dir = "/inc";
  req.source_path = "/s/candidate.cu";
  auto cmd = compiler_command(req, "nvcc", "/s/out.so");
  EXPECT_TRUE(has(cmd, "-gencode=arch=compute_90a,code=sm_90a"));
  EXPECT_TRUE(has(cmd, "-shared"));
  EXPECT_TRUE(has(cmd, "-I/inc"));
  req.cc_major = 8;
  cmd = compiler_command(req, "nvcc", "/s/out.so");
  EXPECT_TRUE(has(cmd, "-gencode=arch=compute_80,code=sm_80"));
}

TEST(CompilerCommand, CpuIsSharedAndOptimized) {
  compile_request req;
  req.backend = "cpu";
  req.include_dir = "/inc";
  req.source_path = "/s/candidate.cpp";
  auto cmd = compiler_command(req, "g++", "/s/out.so");
  EXPECT_TRUE(has(cmd, "-fPIC"));
  EXPECT_TRUE(has(cmd, "-O3"));
  EXPECT_TRUE(has(cmd, "-fopenmp"));
  EXPECT_TRUE(has(cmd, "-Wl,--as-needed"));
  EXPECT_EQ(cmd.back(), "/s/out.so");
}

TEST(TrimDiagnostics, NamesTheUsersFileAndStartsNearTheError) {
  std::string raw;
  for (int i = 0; i < 10; ++i) raw += "/tmp/scratch/candidate.cpp: note " + std::to_string(i) + "\n";
  raw += "/tmp/scratch/candidate.cpp:3:1: error: expected ';'\n";
  for (int i = 0; i < 100; ++i) raw += "context line " + std::to_string(i) + "\n";
  std::string t = trim_diagnostics(raw, "/tmp/scratch/candidate.cpp", "mine.cpp", 20);
  EXPECT_EQ(t.find("/tmp/scratch"), std::string::npos);
  EXPECT_NE(t.find("mine.cpp:3:1: error"), std::string::npos);
  EXPECT_EQ(t.find("note 0"), std::string::npos);
  EXPECT_NE(t.find("more lines"), std::string::npos);
}

class CompileCandidate : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = make_temp_dir("cudal1-compile-test");
    ASSERT_TRUE(d.ok());
    dir_ = *d;
    req_.backend = "cpu";
    req_.include_dir = std::string(CUDAL1_SOURCE_DIR) + "/include";
    req_.cache_dir = dir_ + "/cache";
    req_.scratch_dir = dir_;
    req_.source_path = dir_ + "/candidate.cpp";
    req_.display_name = "mine.cpp";
  }
  void TearDown() override { remove_tree(dir_); }
  std::string dir_;
  compile_request req_;
};

TEST_F(CompileCandidate, CompilesOnceThenHitsTheCache) {
  ASSERT_TRUE(write_file_atomic(req_.source_path,
                                "#include <cudal1/abi.h>\nint cudal1_forward(const cudal1_tensor*, int, const cudal1_tensor*, int, "
                                "cudal1_tensor*, int, void*) { return 0; }\n").ok());
  auto first = compile_candidate(req_);
  ASSERT_TRUE(first.ok()) << first.message();
  ASSERT_TRUE(first->ok) << first->diagnostics;
  EXPECT_FALSE(first->cached);
  EXPECT_TRUE(file_exists(first->library_path));
  auto second = compile_candidate(req_);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->ok);
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(first->key, second->key);
  // Any change to the source is a different artifact.
  ASSERT_TRUE(write_file_atomic(req_.source_path, "#include <cudal1/abi.h>\n// changed\nint cudal1_forward(const cudal1_tensor*, int, "
                                                  "const cudal1_tensor*, int, cudal1_tensor*, int, void*) { return 0; }\n").ok());
  auto third = compile_candidate(req_);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->cached);
  EXPECT_NE(third->key, first->key);
}

TEST_F(CompileCandidate, ReportsErrorsWithTheUsersFileName) {
  ASSERT_TRUE(write_file_atomic(req_.source_path, "int f() { return undefined_name; }\n").ok());
  auto out = compile_candidate(req_);
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_FALSE(out->ok);
  EXPECT_NE(out->diagnostics.find("mine.cpp"), std::string::npos) << out->diagnostics;
  EXPECT_NE(out->diagnostics.find("undefined_name"), std::string::npos);
  EXPECT_EQ(out->diagnostics.find(dir_), std::string::npos);
}

TEST_F(CompileCandidate, TimeLimitEndsCompilationAsACompileError) {
  // Heavy template instantiation keeps the compiler busy well past 0.2 s.
  ASSERT_TRUE(write_file_atomic(req_.source_path,
                                "#include <cudal1/abi.h>\n#include <regex>\n#include <map>\n#include <iostream>\n"
                                "template <int N> struct F { static constexpr long v = F<N - 1>::v + F<N - 2>::v; };\n"
                                "template <> struct F<1> { static constexpr long v = 1; };\n"
                                "template <> struct F<0> { static constexpr long v = 0; };\n"
                                "long f() { std::regex r(\"a+\"); std::map<int, std::string> m; return F<80>::v; }\n").ok());
  req_.timeout_s = 0.2;
  auto out = compile_candidate(req_);
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_FALSE(out->ok);
  EXPECT_TRUE(out->timed_out);
  EXPECT_NE(out->diagnostics.find("did not finish within"), std::string::npos);
}

// OpenMP is on for native CPU builds, and libgomp is linked only where the
// code uses it: the worker warms libgomp's pool for a library that needs it.
TEST_F(CompileCandidate, LinksLibgompOnlyWhereOpenMPIsUsed) {
  const std::string head =
      "#include <cudal1/abi.h>\n#include <omp.h>\nextern \"C\" int cudal1_forward(const cudal1_tensor*, int, "
      "const cudal1_tensor*, int, cudal1_tensor*, int, void*) {\n";
  ASSERT_TRUE(write_file_atomic(req_.source_path, head + "  return omp_get_max_threads() > 0 ? 0 : 1;\n}\n").ok());
  auto with = compile_candidate(req_);
  ASSERT_TRUE(with.ok()) << with.message();
  ASSERT_TRUE(with->ok) << with->diagnostics;
  auto needed = elf_needed_libraries(with->library_path);
  ASSERT_TRUE(needed.ok()) << needed.message();
  EXPECT_NE(std::find(needed->begin(), needed->end(), "libgomp.so.1"), needed->end());

  ASSERT_TRUE(write_file_atomic(req_.source_path, head + "  return 0;\n}\n").ok());
  auto without = compile_candidate(req_);
  ASSERT_TRUE(without.ok()) << without.message();
  ASSERT_TRUE(without->ok) << without->diagnostics;
  needed = elf_needed_libraries(without->library_path);
  ASSERT_TRUE(needed.ok()) << needed.message();
  EXPECT_EQ(std::find(needed->begin(), needed->end(), "libgomp.so.1"), needed->end());
}

TEST(ElfNeededLibraries, RejectsWhatIsNotAnElfLibrary) {
  auto d = make_temp_dir("cudal1-elf-test");
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(write_file_atomic(*d + "/text.so", "not an ELF file at all, but long enough to hold a header......").ok());
  ASSERT_TRUE(write_file_atomic(*d + "/short.so", "\x7f" "ELF").ok());
  auto text = elf_needed_libraries(*d + "/text.so");
  EXPECT_FALSE(text.ok());
  EXPECT_FALSE(elf_needed_libraries(*d + "/short.so").ok());
  EXPECT_FALSE(elf_needed_libraries(*d + "/missing.so").ok());
  remove_tree(*d);
}

TEST_F(CompileCandidate, MissingSourceIsAnError) {
  req_.source_path = dir_ + "/nope.cpp";
  EXPECT_FALSE(compile_candidate(req_).ok());
}

}  // namespace
}  // namespace cudal1
