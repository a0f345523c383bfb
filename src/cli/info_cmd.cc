// cudal1 info: what cudal1 would use on this machine.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_text.h"
#include "cli/commands.h"
#include "compile/compiler.h"
#include "compile/python_build.h"
#include "task/python.h"
#include "worker/probe.h"

namespace cudal1 {

int run_info(const args_t& args) {
  bool as_json = false;
  for (const auto& a : args) {
    if (a == "--json") as_json = true;
    else if (a == "--help" || a == "-h") {
      std::printf("usage: cudal1 info [--json]\n\nShows the backends (the CUDA device, if any), the Python with PyTorch,\n"
                  "the compilers and the folders cudal1 would use.\n");
      return 0;
    } else return usage_error("unknown option " + a + " (see cudal1 info --help)");
  }
  nlohmann::json info;
  std::string worker = executable_dir() + "/cudal1-worker";
  auto data = data_dir();
  info["data_dir"] = data ? nlohmann::json(*data) : nlohmann::json(nullptr);
  info["worker"] = is_executable(worker) ? nlohmann::json(worker) : nlohmann::json(nullptr);
  info["cache_dir"] = default_cache_dir();
  auto py = find_python("");
  info["python"] = py ? nlohmann::json{{"path", py->path}, {"torch", py->torch_version}, {"cuda", py->cuda_available}}
                      : nlohmann::json{{"error", py.message()}};
  for (const char* backend : {"cpu", "cuda"}) {
    auto c = find_compiler(backend);
    info["compilers"][backend] = c ? nlohmann::json(*c) : nlohmann::json(nullptr);
  }
  auto cuda = probe_device("cuda");
  info["backends"]["cpu"] = true;
  info["backends"]["cuda"] = cuda ? *cuda : nlohmann::json{{"error", cuda.message()}};
  info["cuda_available"] = cuda.ok() && py && py->cuda_available;
  // The precompiled <torch/extension.h> variants made for this Python (cudal1 prepare).
  std::string pch = py ? pch_folder(py->path) : "";
  std::vector<std::string> variants;
  std::error_code ec;
  if (!pch.empty())
    for (const auto& e : std::filesystem::directory_iterator(pch, ec))
      if (e.is_directory() && file_exists(e.path().string() + "/stamp.json")) variants.push_back(e.path().filename().string());
  std::sort(variants.begin(), variants.end());
  info["precompiled_headers"] = {{"folder", pch.empty() ? nlohmann::json(nullptr) : nlohmann::json(pch)}, {"variants", variants}};
  if (as_json) {
    std::printf("%s\n", json_text(info, 2).c_str());
    return 0;
  }
  std::printf("data folder   %s\n", data ? data->c_str() : data.message().c_str());
  std::printf("worker        %s\n", is_executable(worker) ? worker.c_str() : "missing");
  std::printf("compile cache %s\n", default_cache_dir().c_str());
  std::printf("python        %s\n", py ? (py->path + " (torch " + py->torch_version + (py->cuda_available ? ", CUDA" : ", CPU only") + ")").c_str()
                                    : py.message().c_str());
  for (const char* backend : {"cpu", "cuda"}) {
    auto c = find_compiler(backend);
    std::printf("%-13s %s\n", (std::string(backend) + " compiler").c_str(), c ? c->c_str() : c.message().c_str());
  }
  std::printf("cuda backend  %s\n", cuda ? (cuda->value("name", std::string("?")) + " (sm " + cuda->value("compute_capability", std::string("?")) + ")").c_str()
                                         : ("unavailable: " + cuda.message()).c_str());
  if (cuda) std::printf("kernel census %s\n", cuda->value("kernel_census", std::string("?")).c_str());
  std::string joined;
  for (const auto& v : variants) joined += (joined.empty() ? "" : ", ") + v;
  std::printf("torch headers %s\n", pch.empty() ? "no folder for precompiled headers"
                                                 : (pch + " (" + (joined.empty() ? "none made yet: cudal1 prepare" : joined) + ")").c_str());
  return 0;
}

}  // namespace cudal1
