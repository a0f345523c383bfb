// Asking a fresh worker which device a backend has (the cudal1 program
// itself never creates a CUDA context).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace cudal1 {

/// Starts cudal1-worker (beside this executable) for `backend` and returns
/// the device facts of its hello (name, compute_capability, ...). Errors: no
/// worker, or the backend is unavailable (the worker's reason).
result<nlohmann::json> probe_device(const std::string& backend);

}  // namespace cudal1
