#include "audit/kernel_origin.h"

#include <cxxabi.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <set>

namespace cudal1 {

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

std::string kernel_origin(const std::string& name, std::string_view candidate_library) {
  if (!name.empty()) {
    std::string needle = name;
    needle.push_back('\0');
    if (candidate_library.find(needle) != std::string_view::npos) return "candidate";
  }
  auto has = [&](const char* mark) { return name.find(mark) != std::string::npos; };
  if (has("cudnn") || has("fprop") || has("dgrad") || has("wgrad") || has("implicit_convolve") ||
      has("implicit_gemm"))
    return "cudnn";
  if (has("cublas") || has("xmma") || has("gemm") || has("gemv") || has("cutlass")) return "cublas";
  if (has("_ZN2at") || has("at::") || has("_ZN3c10")) return "pytorch";
  return "library";
}

nlohmann::json summarize_census(const nlohmann::json& launches, std::string_view candidate_library) {
  struct tally {
    int launches = 0;
    std::set<uint64_t> streams;
  };
  std::map<std::string, tally> by_name;
  std::set<uint64_t> streams;
  for (const auto& k : launches) {
    tally& t = by_name[k.value("name", "?")];
    t.launches += k.value("launches", 1);
    t.streams.insert(k.value("stream", uint64_t{0}));
    streams.insert(k.value("stream", uint64_t{0}));
  }
  nlohmann::json kernels = nlohmann::json::array();
  std::set<std::string> libraries;
  bool custom = false;
  for (const auto& [name, t] : by_name) {
    std::string origin = kernel_origin(name, candidate_library);
    if (origin == "candidate") custom = true;
    else libraries.insert(origin);
    kernels.push_back({{"name", demangle(name)}, {"symbol", name}, {"origin", origin}, {"launches", t.launches},
                       {"streams", t.streams.size()}});
  }
  return {{"available", true}, {"kernels", kernels}, {"custom_kernel", custom}, {"libraries", libraries},
          {"streams", streams.size()}};
}

std::string census_listing(const nlohmann::json& census) {
  std::string listing;
  for (const auto& k : census.value("kernels", nlohmann::json::array())) {
    if (listing.size() > 300) break;
    listing += std::string(listing.empty() ? "" : ", ") + k["name"].get<std::string>().substr(0, 80) + " (" +
               k["origin"].get<std::string>() + ")";
  }
  return listing.empty() ? "no kernels" : listing;
}

}  // namespace cudal1
