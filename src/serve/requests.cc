#include "serve/requests.h"

#include <algorithm>
#include <filesystem>

#include "base/fs.h"
#include "base/sha256.h"
#include "llm/answer.h"

namespace cudal1 {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string rstrip(const std::string& s) {
  size_t end = s.find_last_not_of(" \t\r\n");
  return end == std::string::npos ? "" : s.substr(0, end + 1);
}

// "level1/softmax"; an example's task.py is named by its folder ("swish").
std::string task_name_of(const fs::path& file) {
  std::string folder = file.parent_path().filename().string();
  if (file.stem() == "task" && !folder.empty()) return folder;
  return folder.empty() ? file.stem().string() : folder + "/" + file.stem().string();
}

request_error bad(int status, std::string message) { return request_error{status, std::move(message)}; }

}  // namespace

result<task_catalog> task_catalog::load(const std::vector<std::string>& paths) {
  task_catalog c;
  for (const std::string& p : paths) {
    std::error_code ec;
    std::vector<fs::path> files;
    if (fs::is_directory(p, ec)) {
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.is_regular_file() && e.path().extension() == ".py") files.push_back(e.path());
      std::sort(files.begin(), files.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      return make_error("--tasks " + p + ": no such folder or file");
    }
    for (const auto& f : files) {
      auto text = read_file(f.string());
      if (!text) return text.err();
      c.tasks_.push_back({task_name_of(fs::absolute(f)), fs::absolute(f).string(), *text});
    }
  }
  if (c.tasks_.empty()) return make_error("no task (*.py) in the --tasks folders given");
  return c;
}

const task_entry* task_catalog::find(const std::string& asked, std::string* why) const {
  std::string name = asked.size() > 3 && asked.ends_with(".py") ? asked.substr(0, asked.size() - 3) : asked;
  std::vector<const task_entry*> by_stem;
  for (const auto& t : tasks_) {
    if (t.name == name) return &t;
    if (fs::path(t.name).filename().string() == name) by_stem.push_back(&t);
  }
  if (by_stem.size() == 1) return by_stem.front();
  if (by_stem.empty()) {
    *why = "unknown task '" + asked + "' (this server has " + std::to_string(tasks_.size()) +
           " tasks; GET /v1/tasks lists them)";
  } else {
    *why = "task '" + asked + "' is ambiguous: name one of";
    for (const auto* t : by_stem) *why += " " + t->name;
  }
  return nullptr;
}

const task_entry* task_catalog::find_by_source(const std::string& source) const {
  std::string want = rstrip(source);
  for (const auto& t : tasks_)
    if (rstrip(t.source) == want) return &t;
  return nullptr;
}

parsed<taken_code> take_code(const std::string& text, const std::string& format_asked, const request_limits& limits) {
  if (text.size() > limits.max_code_bytes)
    return bad(413, "the code is " + std::to_string(text.size()) + " bytes; this server takes at most " +
                        std::to_string(limits.max_code_bytes) + " (--max-code-bytes)");
  std::string native = limits.backend == "cuda" ? "cuda" : "cpp";
  std::string format = format_asked;
  // No format given: a native candidate defines cudal1_forward (a C++ file
  // may well mention "class ModelNew" in a comment), else a ModelNew class
  // makes it Python.
  if (format.empty())
    format = text.find("cudal1_forward") == std::string::npos && text.find("class ModelNew") != std::string::npos
                 ? "modelnew"
                 : native;
  if (format != "cuda" && format != "cpp" && format != "modelnew")
    return bad(400, "unknown format '" + format + "' (cuda, cpp or modelnew)");
  if (format != "modelnew" && format != native)
    return bad(422, "format '" + format + "' cannot be judged here: this server judges on the " + limits.backend +
                        " backend (" + native + " or modelnew)");
  taken_code out;
  out.format = format;
  if (text.find("```") == std::string::npos) {  // the code itself, or prose without code
    out.code = text;
    if (rstrip(text).empty()) out.problem = "the code is empty";
    else if (format == "modelnew" && text.find("class ModelNew") == std::string::npos)
      out.problem = "the text defines no class ModelNew";
    else if (format != "modelnew" && text.find("cudal1_forward") == std::string::npos)
      out.problem = "the text defines no cudal1_forward (and has no fenced code block)";
    out.has_code = out.problem.empty();
    return out;
  }
  parsed_answer a = parse_answer(text, format);
  out.has_code = a.has_code;
  out.code = a.code;
  out.problem = a.problem;
  return out;
}

parsed<json> check_options(const json& options) {
  if (options.is_null()) return json::object();
  if (!options.is_object()) return bad(400, "\"options\" must be an object");
  json out = json::object();
  for (const auto& [key, v] : options.items()) {
    if (key == "profile") {
      if (!v.is_string()) return bad(400, "options.profile must be a string");
    } else if (key == "precision") {
      if (!v.is_string() || (v != "fp32" && v != "tf32" && v != "bf16"))
        return bad(400, "options.precision must be fp32, tf32 or bf16");
    } else if (key == "baseline") {
      if (!v.is_string() || (v != "eager" && v != "compile" && v != "cuda_graph"))
        return bad(400, "options.baseline must be eager, compile or cuda_graph");
    } else if (key == "trials") {
      if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 20)
        return bad(400, "options.trials must be an integer from 1 to 20");
    } else {
      return bad(400, "unknown option '" + key + "' (a request may set profile, precision, baseline, trials; "
                      "the inputs' seed is the judge's secret)");
    }
    out[key] = v;
  }
  return out;
}

parsed<judge_request> parse_judge_request(const json& body, const task_catalog& tasks, const request_limits& limits,
                                          taken_code* code) {
  if (!body.is_object()) return bad(400, "a judge request is a JSON object");
  auto string_field = [&](const char* name) -> const json* {
    auto it = body.find(name);
    return it != body.end() && it->is_string() ? &*it : nullptr;
  };
  for (const char* name : {"task", "reference_code", "code", "format", "reward"})
    if (body.contains(name) && !body[name].is_string()) return bad(400, std::string("\"") + name + "\" must be a string");
  const task_entry* task = nullptr;
  task_entry inline_task;  // a reference_code judged as a task of its own
  std::string why;
  if (const json* t = string_field("task")) {
    task = tasks.find(t->get<std::string>(), &why);
    if (!task) return bad(404, why);
  } else if (const json* ref = string_field("reference_code")) {
    task = tasks.find_by_source(ref->get<std::string>());
    if (!task && limits.allow_inline_tasks) {
      const std::string& source = ref->get<std::string>();
      if (source.size() > limits.max_code_bytes)
        return bad(413, "the reference_code is " + std::to_string(source.size()) + " bytes; this server takes at most " +
                            std::to_string(limits.max_code_bytes));
      if (source.find("class Model") == std::string::npos || source.find("def get_inputs") == std::string::npos)
        return bad(422, "the reference_code is no KernelBench task (it needs class Model, get_inputs and get_init_inputs)");
      std::string hash = sha256_hex(source);
      inline_task.name = "inline/" + hash.substr(0, 16);
      inline_task.path = limits.inline_dir + "/" + hash.substr(0, 32) + ".py";
      inline_task.source = source;
      if (!file_exists(inline_task.path))
        if (auto w = write_file_atomic(inline_task.path, source); !w) return bad(500, "cannot keep the inline task: " + w.message());
      task = &inline_task;
    }
    if (!task)
      return bad(422, "the reference_code is none of this server's tasks (--tasks); a request names one of them "
                      "(\"task\") or sends its exact source (a server started with --allow-inline-tasks judges "
                      "other reference code too)");
  } else {
    return bad(400, "the request names no task (\"task\": a task of this server, or \"reference_code\": its source)");
  }
  const json* text = string_field("code");
  if (!text) return bad(400, "the request has no \"code\" (the candidate's source, or a whole LLM answer)");
  auto taken = take_code(text->get<std::string>(), body.value("format", ""), limits);
  if (auto* e = std::get_if<request_error>(&taken)) return *e;
  *code = std::get<taken_code>(taken);
  auto options = check_options(body.contains("options") ? body["options"] : json());
  if (auto* e = std::get_if<request_error>(&options)) return *e;
  judge_request r;
  r.task_name = task->name;
  r.task_path = task->path;
  r.task_source = task->source;
  r.code = code->code;
  r.format = code->format;
  r.options = std::get<json>(options);
  if (task == &inline_task) r.options["untrusted_task"] = true;  // set by the server, never by a client
  r.reward = limits.reward;
  if (const json* k = string_field("reward")) {
    auto kind = parse_reward_kind(k->get<std::string>());
    if (!kind) return bad(400, "unknown reward '" + k->get<std::string>() + "' (cuda_l1, kevin or kernelgym)");
    r.reward = *kind;
  }
  if (body.contains("fresh")) {
    if (!body["fresh"].is_boolean()) return bad(400, "\"fresh\" must be true or false");
    r.fresh = body["fresh"].get<bool>();
  }
  return r;
}

judge_options with_job_options(judge_options o, const json& req) {
  if (!req.is_object()) return o;
  if (req.contains("profile") && req["profile"].is_string()) o.profile = req["profile"].get<std::string>();
  if (req.contains("precision") && req["precision"].is_string()) o.precision = req["precision"].get<std::string>();
  if (req.contains("baseline") && req["baseline"].is_string()) o.baseline = req["baseline"].get<std::string>();
  if (req.contains("seed") && req["seed"].is_number_integer()) o.seed = req["seed"].get<uint64_t>();
  if (req.contains("trials") && req["trials"].is_number_integer()) o.trials = req["trials"].get<int>();
  if (req.value("untrusted_task", false)) o.untrusted_task = true;
  return o;
}

}  // namespace cudal1
