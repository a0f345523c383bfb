// cudal1 prepare: the precompiled <torch/extension.h> headers that ModelNew
// load_inline builds use, made ahead (a build that wants a missing one makes
// it in the background for the next builds; this makes them now).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_text.h"
#include "base/subprocess.h"
#include "cli/commands.h"
#include "compile/python_build.h"
#include "task/python.h"

namespace cudal1 {

namespace {

constexpr const char* kHelp = R"(usage: cudal1 prepare [--python PATH] [--flags "FLAGS"]... [--json]

Makes the precompiled <torch/extension.h> that a ModelNew's load_inline build
compiles its C++ file with (the cold build's longest step after nvcc), once
per Python and per -O/-std variant of the candidate's extra_cflags. gcc uses a
header only where the flags match, so what a build makes is the same either
way. Without this, the first build that wants a missing variant makes it in
the background for the next ones.

options:
  --python PATH   the Python with torch (default: the one cudal1 eval would use)
  --flags FLAGS   a variant: the -O and -std flags of extra_cflags, e.g. "-O3"
                  or "-O3 -std=c++17" (repeatable; default: none and "-O3",
                  the two most common)
  --json          print what was made as JSON

The headers live in TMP/cudal1-pch-UID/ (about 650 MB each with torch 1.13);
CUDAL1_PCH=0 turns their use off.
)";

}  // namespace

int run_prepare(const args_t& args) {
  std::string chosen;
  std::vector<std::string> variants;
  bool as_json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s", kHelp);
      return 0;
    } else if (a == "--python" && i + 1 < args.size()) chosen = args[++i];
    else if (a == "--flags" && i + 1 < args.size()) variants.push_back(args[++i]);
    else if (a == "--json") as_json = true;
    else return usage_error("unknown option " + a + " (see cudal1 prepare --help)");
  }
  if (variants.empty()) variants = {"", "-O3"};
  auto py = find_python(chosen);
  if (!py) return usage_error(py.message());
  auto data = data_dir();
  if (!data) return usage_error(data.message());
  std::string folder = pch_folder(py->path);
  if (folder.empty())
    return usage_error("no folder for precompiled headers (CUDAL1_PCH=0, or the temporary folder's cudal1-pch-" +
                       std::to_string(getuid()) + " belongs to another user or others can write it)");
  nlohmann::json made = nlohmann::json::array();
  int failures = 0;
  for (const auto& flags : variants) {
    if (!as_json) std::fprintf(stderr, "making the precompiled <torch/extension.h> for %s, flags '%s'...\n", py->path.c_str(), flags.c_str());
    auto start = std::chrono::steady_clock::now();
    auto run = run_command({py->path, "-u", *data + "/python/cudal1_candidate.py", "--make-pch", folder, "--pch-flags=" + flags}, 3600);
    double s = seconds_since(start);
    bool ok = run && run->exit.exited && run->exit.code == 0;
    failures += !ok;
    std::string why = !run ? run.message() : ok ? "" : tail_lines(run->output, 5);
    made.push_back({{"flags", flags}, {"ok", ok}, {"seconds", s}, {"error", why}});
    if (!as_json) {
      if (ok) std::printf("made in %.1f s: flags '%s'\n", s, flags.c_str());
      else std::printf("failed after %.1f s: flags '%s': %s\n", s, flags.c_str(), why.c_str());
    }
  }
  if (as_json) std::printf("%s\n", json_text(nlohmann::json{{"python", py->path}, {"folder", folder}, {"variants", made}}).c_str());
  else std::printf("folder %s\n", folder.c_str());
  return failures ? 1 : 0;
}

}  // namespace cudal1
