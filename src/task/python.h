// Finding a Python interpreter that has PyTorch, for the reference worker.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace cudal1 {

struct python_info {
  std::string path;
  std::string torch_version;
  bool cuda_available = false;  // torch was built with CUDA and sees a GPU
};

/// The interpreters tried, in order, when none is chosen: $CUDAL1_PYTHON,
/// python3 on PATH, /usr/bin/python3, /usr/local/bin/python3, /opt/torch/.venv/bin/python3.
std::vector<std::string> python_candidates();

/// The first interpreter that imports torch. With `chosen` non-empty only that
/// one is tried (the --python flag). Errors list what was tried and why it failed.
result<python_info> find_python(const std::string& chosen);

}  // namespace cudal1
