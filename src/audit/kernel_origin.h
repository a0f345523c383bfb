// Where the kernels of a kernel census came from: the candidate's own code,
// or a library (cuBLAS, cuDNN, PyTorch).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cudal1 {

/// "candidate" when the kernel's name is one the candidate's library defines
/// (its host code registers every kernel of its own by name, so the name is a
/// NUL-terminated string in the file); otherwise "cublas", "cudnn" or
/// "pytorch" by the name's marks, else "library".
std::string kernel_origin(const std::string& name, std::string_view candidate_library);

/// The demangled name of a C++ symbol ("_Z..."), or the name itself.
std::string demangle(const std::string& name);

/// The census of a judgment's trials, from the launches the worker reported
/// ({name, stream, launches} summed over the trials): {"available": true,
/// "kernels": [{name, symbol, origin, launches, streams}], "custom_kernel",
/// "libraries": [origins other than the candidate], "streams": distinct streams}.
nlohmann::json summarize_census(const nlohmann::json& launches, std::string_view candidate_library);

/// The census's kernels in a line: "name (origin), ..." (names cut at 80
/// characters, the list at about 300), or "no kernels".
std::string census_listing(const nlohmann::json& census);

}  // namespace cudal1
