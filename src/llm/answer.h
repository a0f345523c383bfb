// An LLM's answer, taken apart: the code block the judge gets, and the
// analysis kept beside the kernel (CUDA-L1's three sections: Performance
// Analysis, Algorithm Design, Code Implementation).
#pragma once

#include <string>

namespace cudal1 {

struct parsed_answer {
  bool has_code = false;
  std::string code;      // the chosen fenced block's text, without the fences
  std::string language;  // the fence's info string, lower case ("cuda", "cpp", "python", "")
  std::string analysis;  // the text outside the chosen block (the sections before it)
  std::string problem;   // when !has_code: why ("no fenced code block", "the code block is empty", ...)
};

/// `format`: what was asked for: "cuda" (a native .cu), "cpp" (a native .cpp
/// for the CPU backend) or "modelnew" (a Python module with class ModelNew).
/// Picks the block under a "Code Implementation" heading when there is one,
/// else the last block whose language fits the format (cuda/cu/c++/cpp for
/// native; python/py for modelnew; an unlabelled block fits any), else the
/// longest block. An unterminated final fence (a truncated answer) counts as
/// no code. A native answer must define cudal1_forward and a modelnew answer
/// class ModelNew, else has_code is false with the reason.
parsed_answer parse_answer(const std::string& text, const std::string& format);

}  // namespace cudal1
