// expect_flags: runs `cudal1 audit-task TASK --json [flags...]` and checks the
// task's flags: "sound" means none, otherwise the named class must be there.
//
//   expect_flags CUDAL1 TASK sound|CLASS [audit-task flags...]
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "base/subprocess.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: expect_flags CUDAL1 TASK sound|CLASS [flags...]\n");
    return 2;
  }
  std::vector<std::string> cmd = {argv[1], "audit-task", argv[2], "--json"};
  for (int i = 4; i < argc; ++i) cmd.push_back(argv[i]);
  std::string want = argv[3];
  auto run = cudal1::run_command(cmd, 280);
  if (!run) return std::printf("FAIL: cannot run cudal1: %s\n", run.message().c_str()), 1;
  std::printf("%s\n", run->output.c_str());
  if (!run->exit.exited || run->exit.code != 0) return std::printf("FAIL: %s\n", run->exit.describe().c_str()), 1;
  std::istringstream out(run->output);
  for (std::string line; std::getline(out, line);) {
    if (line.empty() || line[0] != '{') continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("flags")) continue;
    bool found = false;
    for (const auto& f : j["flags"]) found |= f.value("class", "") == want;
    bool ok = want == "sound" ? j["flags"].empty() : found;
    std::printf("%s: expected %s\n", ok ? "PASS" : "FAIL", want.c_str());
    return ok ? 0 : 1;
  }
  std::printf("FAIL: no JSON report\n");
  return 1;
}
