// Taking an LLM's answer apart: find the fenced code blocks (``` or ~~~, as
// CommonMark has them), choose the one the judge gets, check it is the kind of
// candidate that was asked for.
#include "llm/answer.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <vector>

namespace cudal1 {
namespace {

struct code_block {
  size_t begin = 0, end = 0;  // byte range of the block in the answer, fences included
  std::string language;       // the info string's first word, lower case
  std::string code;
  bool closed = false;
  bool under_code_heading = false;  // after a "Code Implementation" heading
};

std::string to_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// A fence: three or more backticks or tildes after optional indentation. The
// returned string is the fence itself ("```", "~~~~"); *info is what follows.
std::optional<std::string> fence_of(const std::string& line, std::string* info) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || (line[i] != '`' && line[i] != '~')) return std::nullopt;
  size_t n = line.find_first_not_of(line[i], i);
  if (n == std::string::npos) n = line.size();
  if (n - i < 3) return std::nullopt;
  *info = trim(line.substr(n));
  // CommonMark: a backtick fence's info string holds no backtick (that is inline code).
  if (line[i] == '`' && info->find('`') != std::string::npos) return std::nullopt;
  return line.substr(i, n - i);
}

// Closes an open fence: the same character, at least as many, nothing else.
bool closes(const std::string& line, const std::string& open) {
  std::string t = trim(line);
  return t.size() >= open.size() && t.find_first_not_of(open[0]) == std::string::npos;
}

// "### 3. Code Implementation", "**Code Implementation:**", "Code Implementation"...
// A short line that is the phrase once markup and numbering are stripped; a
// sentence that mentions the section is not a heading.
bool is_code_heading(const std::string& line) {
  std::string t = to_lower(trim(line));
  size_t b = t.find_first_not_of("#*_ \t0123456789.)-");
  if (b == std::string::npos) return false;
  size_t e = t.find_last_not_of("*_: \t");
  std::string core = t.substr(b, e - b + 1);
  return core.rfind("code implementation", 0) == 0 && core.size() <= 40;
}

// Every fenced block, in order, with the text between the fences. Lines may
// end in "\r\n".
std::vector<code_block> find_blocks(const std::string& text) {
  std::vector<code_block> blocks;
  std::optional<std::string> open;  // the fence of the block being read
  code_block cur;
  bool after_heading = false;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    size_t next = nl == std::string::npos ? text.size() : nl + 1;
    std::string line = text.substr(pos, next - pos);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string info;
    if (open) {
      if (closes(line, *open)) {
        cur.end = next;
        cur.closed = true;
        blocks.push_back(cur);
        open.reset();
      } else {
        cur.code += line + "\n";
      }
    } else if (auto f = fence_of(line, &info)) {
      open = f;
      cur = code_block{};
      cur.begin = pos;
      cur.language = to_lower(info.substr(0, info.find_first_of(" \t{")));
      cur.under_code_heading = after_heading;
    } else if (is_code_heading(line)) {
      after_heading = true;
    }
    pos = next;
  }
  if (open) {  // the answer ended inside a block
    cur.end = text.size();
    blocks.push_back(cur);
  }
  return blocks;
}

bool is_native(const std::string& format) { return format == "cuda" || format == "cpp"; }

bool language_fits(const std::string& language, const std::string& format) {
  static const std::vector<std::string> native = {"cuda", "cu", "c++", "cpp", "cxx", "cc", "c"};
  static const std::vector<std::string> python = {"python", "py", "python3"};
  if (language.empty()) return true;
  const auto& fits = is_native(format) ? native : python;
  return std::find(fits.begin(), fits.end(), language) != fits.end();
}

// The block under a "Code Implementation" heading when there is one
// (the first there that fits the format, else the first there: later blocks
// in that section are usage examples as a rule); else the last block that
// fits the format; else the longest.
const code_block& choose_block(const std::vector<code_block>& blocks, const std::string& format) {
  std::vector<const code_block*> under_heading;
  for (const auto& b : blocks)
    if (b.under_code_heading) under_heading.push_back(&b);
  if (!under_heading.empty()) {
    for (const code_block* b : under_heading)
      if (language_fits(b->language, format)) return *b;
    return *under_heading.front();
  }
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it)
    if (language_fits(it->language, format)) return *it;
  return *std::max_element(blocks.begin(), blocks.end(),
                           [](const code_block& a, const code_block& b) { return a.code.size() < b.code.size(); });
}

// Why the code is not the candidate asked for, or "" when it is.
std::string check_format(const std::string& code, const std::string& language, const std::string& format) {
  std::string what = language.empty() ? "the code block" : "the code block (" + language + ")";
  if (is_native(format)) {
    if (code.find("cudal1_forward") == std::string::npos)
      return what + " does not define cudal1_forward, which a native candidate must (see cudal1/abi.h)";
    return "";
  }
  static const std::regex model_new(R"(class\s+ModelNew\b)");
  if (!std::regex_search(code, model_new)) return what + " does not define class ModelNew";
  return "";
}

}  // namespace

parsed_answer parse_answer(const std::string& text, const std::string& format) {
  parsed_answer out;
  out.analysis = trim(text);
  if (!is_native(format) && format != "modelnew") {
    out.problem = "unknown answer format '" + format + "' (cuda, cpp or modelnew)";
    return out;
  }
  std::vector<code_block> blocks = find_blocks(text);
  if (blocks.empty()) {
    out.problem = "no fenced code block in the answer";
    return out;
  }
  if (!blocks.back().closed) {
    out.problem = "the last code block is never closed: the answer was cut off (truncated; raise max_tokens?)";
    return out;
  }
  const code_block& chosen = choose_block(blocks, format);
  out.language = chosen.language;
  out.analysis = trim(text.substr(0, chosen.begin) + text.substr(chosen.end));
  if (trim(chosen.code).empty()) {
    out.problem = "the code block is empty";
    return out;
  }
  // The code is kept even when it fails the check: the caller may record what
  // the model wrote.
  out.code = chosen.code;
  out.problem = check_format(chosen.code, chosen.language, format);
  out.has_code = out.problem.empty();
  return out;
}

}  // namespace cudal1
