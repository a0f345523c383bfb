#include "optimize/prompt.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include <kainjow/mustache.hpp>

#include "base/fs.h"

namespace cudal1 {

namespace mustache = kainjow::mustache;
using nlohmann::json;

namespace {

constexpr int kFailureLines = 40;

// ---- text helpers ---------------------------------------------------------

// `digits` significant digits in fixed notation: 0.120, 2.35, 4210.
std::string significant(double x, int digits) {
  int decimals = 0;
  if (x != 0 && std::isfinite(x)) decimals = std::max(0, digits - 1 - static_cast<int>(std::floor(std::log10(std::abs(x)))));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

std::string fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

// Without leading blank lines and trailing whitespace, so a fence closes on
// the line after the code.
std::string trim_block(const std::string& text) {
  size_t begin = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') begin = i + 1;
    else if (!std::isspace(static_cast<unsigned char>(text[i]))) break;
  }
  size_t end = text.size();
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A fence longer than any run of backticks in the text, so code that holds
// ``` (a docstring quoting markdown) cannot close its block early.
std::string fence_for(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

std::string head_lines(const std::string& code, int max_lines) {
  const std::vector<std::string> lines = split_lines(code);
  if (static_cast<int>(lines.size()) <= max_lines) return code;
  std::string out;
  for (int i = 0; i < max_lines; ++i) out += lines[i] + "\n";
  return out + "... (" + std::to_string(lines.size() - max_lines) + " more lines not shown)";
}

bool is_heading(const std::string& line) {
  size_t n = 0;
  while (n < line.size() && line[n] == '#') ++n;
  return n > 0 && n < line.size() && line[n] == ' ';
}

// An earlier answer's analysis, nested under the prompt's own headings: its
// headings go two levels down (its "## Performance Analysis" must not read as
// a section of this prompt), and the empty "Code Implementation" heading its
// code was cut from is dropped.
std::string nest_analysis(const std::string& analysis) {
  std::vector<std::string> lines = split_lines(trim_block(analysis));
  while (!lines.empty() && (trim_block(lines.back()).empty() ||
                            (is_heading(lines.back()) && lines.back().find("Code Implementation") != std::string::npos)))
    lines.pop_back();
  std::string out;
  bool in_fence = false;
  for (const std::string& line : lines) {
    if (line.rfind("```", 0) == 0 || line.rfind("~~~", 0) == 0) in_fence = !in_fence;
    out += (!in_fence && is_heading(line) ? "##" : "") + line + "\n";
  }
  return trim_block(out);
}

// ---- the card -------------------------------------------------------------

std::string dtype_name(const std::string& dtype) {
  static const std::pair<const char*, const char*> names[] = {
      {"f32", "float32"}, {"f16", "float16"}, {"bf16", "bfloat16"}, {"f64", "float64"}, {"i32", "int32"},
      {"i64", "int64"},   {"bool", "bool"},   {"u8", "uint8"},      {"i8", "int8"}};
  for (const auto& [short_name, long_name] : names)
    if (dtype == short_name) return long_name;
  return dtype;
}

std::string spec_type(const tensor_spec& s) {
  if (!s.scalar.empty()) return "a Python " + s.scalar;
  std::string shape = "[";
  for (size_t i = 0; i < s.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(s.shape[i]);
  shape += "]";
  return dtype_name(s.dtype) + " " + shape + (s.shape.empty() ? " (0-d)" : "");
}

mustache::data spec_list(const std::vector<tensor_spec>& specs) {
  mustache::data list{mustache::data::type::list};
  for (const tensor_spec& s : specs) {
    mustache::data item;
    item.set("name", s.name);
    item.set("type", spec_type(s));
    list.push_back(item);
  }
  return list;
}

std::string baseline_text(const std::string& baseline) {
  if (baseline == "eager") return "PyTorch eager";
  if (baseline == "compile") return "torch.compile";
  if (baseline == "cuda_graph") return "PyTorch replayed as a CUDA graph";
  return baseline;
}

// The card's precision line and the rule that goes with it.
std::pair<std::string, std::string> precision_text(const std::string& policy) {
  if (policy == "fp32")
    return {"fp32 (float32 data is computed in float32)",
            "Float32 stays float32: no TF32, bf16 or fp16 arithmetic on float32 data."};
  if (policy == "tf32")
    return {"tf32 (float32 matrix products may use TF32)",
            "Float32 matrix products may use TF32 tensor cores, as the reference's do; everything else stays float32."};
  if (policy == "bf16")
    return {"bf16 (float32 computation may use bfloat16)",
            "Float32 computation may use bfloat16, as the reference runs under bf16 autocast; outputs keep their dtypes."};
  return {policy, "The precision policy is " + policy + "."};
}

void set_card(mustache::data& d, const task_card& card) {
  d.set("name", card.name);
  if (!card.device.empty()) d.set("device", card.device);
  if (!card.profile.empty()) d.set("profile", card.profile);
  d.set("backend", card.backend == "cuda" ? std::string("CUDA") : card.backend == "cpu" ? "CPU" : card.backend);
  std::vector<std::string> measured;
  if (card.bandwidth_gb_s) measured.push_back("copy bandwidth " + significant(*card.bandwidth_gb_s, 3) + " GB/s");
  if (card.matrix_tflops)
    measured.push_back("matrix rate " + (*card.matrix_tflops >= 1 ? significant(*card.matrix_tflops, 3) + " TFLOP/s"
                                                                   : significant(*card.matrix_tflops * 1e3, 3) + " GFLOP/s"));
  if (!measured.empty()) d.set("measured", measured.size() == 1 ? measured[0] : measured[0] + ", " + measured[1]);
  d.set("inputs", spec_list(card.inputs));
  d.set("params", spec_list(card.params));
  d.set("outputs", spec_list(card.outputs));
  const bool scalars = std::any_of(card.inputs.begin(), card.inputs.end(), [](const tensor_spec& s) { return !s.scalar.empty(); });
  d.set("has_scalars", scalars);
  const auto [precision, rule] = precision_text(card.precision);
  d.set("precision", precision);
  d.set("precision_rule", rule);
  d.set("baseline", baseline_text(card.baseline));
  if (card.reference_ms) d.set("reference_time", significant(*card.reference_ms, 3));
  if (card.floor_ms) {
    d.set("floor", significant(*card.floor_ms, 3));
    if (card.reference_ms && *card.reference_ms > 0 && *card.floor_ms > 0) {
      const double fraction = *card.floor_ms / *card.reference_ms;
      d.set("floor_fraction", significant(100 * fraction, 2) + "%");
      d.set("max_speedup", significant(1 / fraction, 2));
    }
  }
  d.set("reference_code", trim_block(card.reference_code));
  d.set("reference_fence", fence_for(card.reference_code));
}

// ---- exemplars and failures -----------------------------------------------

const char* fence_language(const std::string& format) {
  if (format == "cuda") return "cuda";
  if (format == "cpp") return "cpp";
  return "python";  // modelnew, the reference
}

void set_code(mustache::data& item, const std::string& code, const std::string& format) {
  const std::string text = trim_block(code);
  if (!text.empty()) item.set("code", text);
  item.set("fence", fence_for(text));
  item.set("lang", fence_language(format));
}

mustache::data exemplar_list(std::vector<kernel_entry> exemplars) {
  std::stable_sort(exemplars.begin(), exemplars.end(), [](const kernel_entry& a, const kernel_entry& b) {
    const double sa = a.format == "reference" ? 1.0 : a.score, sb = b.format == "reference" ? 1.0 : b.score;
    return sa > sb;
  });
  mustache::data list{mustache::data::type::list};
  for (size_t i = 0; i < exemplars.size(); ++i) {
    const kernel_entry& e = exemplars[i];
    const bool reference = e.format == "reference";
    mustache::data item;
    item.set("rank", std::to_string(i + 1));
    item.set("speedup", fixed(reference ? 1.0 : e.score, 2));
    if (!trim_block(e.summary).empty()) item.set("summary", trim_block(e.summary));
    if (!trim_block(e.analysis).empty()) item.set("analysis", nest_analysis(e.analysis));
    item.set("is_reference", reference);
    set_code(item, e.code, e.format);
    list.push_back(item);
  }
  return list;
}

std::string verdict_text(std::string verdict) {
  if (verdict.empty()) return "failed";
  std::replace(verdict.begin(), verdict.end(), '_', ' ');
  return verdict;
}

mustache::data failure_list(const std::vector<kernel_entry>& failures, const std::string& format) {
  mustache::data list{mustache::data::type::list};
  for (size_t i = 0; i < failures.size(); ++i) {
    const kernel_entry& f = failures[i];
    mustache::data item;
    item.set("rank", std::to_string(i + 1));
    item.set("verdict", verdict_text(f.verdict));
    if (!trim_block(f.summary).empty()) item.set("summary", trim_block(f.summary));
    set_code(item, head_lines(trim_block(f.code), kFailureLines), f.format.empty() ? format : f.format);
    list.push_back(item);
  }
  return list;
}

// ---- rendering ------------------------------------------------------------

result<std::string> render_file(const std::string& path, const mustache::data& data) {
  auto text = read_file(path);
  if (!text) return text.err();  // "cannot read PATH: why"
  mustache::mustache tmpl{*text};
  if (!tmpl.is_valid()) return make_error("prompt template " + path + ": " + tmpl.error_message());
  // The prompt is plain text for a model, never HTML: nothing is escaped,
  // whichever mustache a template uses.
  tmpl.set_custom_escape([](const std::string& s) { return s; });
  std::string out = tmpl.render(data);
  if (!tmpl.is_valid()) return make_error("prompt template " + path + ": " + tmpl.error_message());
  return out;
}

}  // namespace

result<prompt_text> render_prompt(const std::string& templates_dir, const task_card& card, const std::string& format,
                                  const std::vector<kernel_entry>& exemplars, const std::vector<kernel_entry>& failures) {
  if (format != "cuda" && format != "cpp" && format != "modelnew")
    return make_error("prompt format must be cuda, cpp or modelnew, not '" + format + "'");
  if (!file_exists(templates_dir))
    return make_error("prompt templates folder " + templates_dir + " not found (it holds system.mustache and user.mustache)");
  mustache::data d;
  set_card(d, card);
  d.set("cuda", format == "cuda");
  d.set("cpp", format == "cpp");
  d.set("modelnew", format == "modelnew");
  d.set("gpu", format == "cuda" || (format == "modelnew" && card.backend != "cpu"));
  d.set("lang", fence_language(format));
  d.set("has_exemplars", !exemplars.empty());
  d.set("exemplars", exemplar_list(exemplars));
  d.set("has_failures", !failures.empty());
  d.set("failures", failure_list(failures, format));

  prompt_text out;
  auto system = render_file(templates_dir + "/system.mustache", d);
  if (!system) return system.err();
  auto user = render_file(templates_dir + "/user.mustache", d);
  if (!user) return user.err();
  out.system = trim_block(*system) + "\n";
  out.user = trim_block(*user) + "\n";
  return out;
}

namespace {

std::optional<double> number_at(const json& j, const char* object, const char* key) {
  if (!j.is_object() || !j.contains(object) || !j[object].is_object()) return std::nullopt;
  const json& o = j[object];
  if (!o.contains(key) || !o[key].is_number()) return std::nullopt;
  return o[key].get<double>();
}

std::string string_at(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::vector<tensor_spec> specs_of(const json& signature, const char* part) {
  std::vector<tensor_spec> out;
  if (!signature.is_object() || !signature.contains(part) || !signature[part].is_array()) return out;
  for (const json& s : signature[part]) {
    if (!s.is_object()) continue;
    tensor_spec spec;
    spec.name = string_at(s, "name");
    spec.dtype = string_at(s, "dtype");
    spec.scalar = string_at(s, "scalar");
    if (s.contains("shape") && s["shape"].is_array())
      for (const json& n : s["shape"])
        if (n.is_number_integer()) spec.shape.push_back(n.get<long>());
    out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace

task_card card_from_judgment(const std::string& name, const std::string& reference_code, const json& judgment) {
  task_card card;
  card.name = name;
  card.reference_code = reference_code;
  if (!judgment.is_object()) return card;
  if (judgment.contains("signature")) {
    const json& sig = judgment["signature"];
    card.inputs = specs_of(sig, "inputs");
    card.params = specs_of(sig, "params");
    card.outputs = specs_of(sig, "outputs");
  }
  if (judgment.contains("device")) card.device = string_at(judgment["device"], "name");
  card.backend = string_at(judgment, "backend");
  card.profile = string_at(judgment, "profile");
  if (auto bw = number_at(judgment, "speed_of_light", "bandwidth_bytes_per_s"); bw && *bw > 0) card.bandwidth_gb_s = *bw / 1e9;
  if (auto peak = number_at(judgment, "speed_of_light", "peak_flops_per_s"); peak && *peak > 0)
    card.matrix_tflops = *peak / 1e12;
  card.reference_ms = number_at(judgment, "reference", "median_ms");
  card.floor_ms = number_at(judgment, "speed_of_light", "floor_ms");
  if (std::string b = string_at(judgment, "baseline"); !b.empty()) card.baseline = b;
  if (judgment.contains("precision"))
    if (std::string p = string_at(judgment["precision"], "policy"); !p.empty()) card.precision = p;
  return card;
}

}  // namespace cudal1
