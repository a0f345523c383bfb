#include "bench/inputs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "base/fs.h"
#include "base/json_text.h"
#include "base/sha256.h"

namespace cudal1 {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::string candidate_format(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  if (ext == ".cu") return "cuda";
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx") return "cpp";
  if (ext == ".py") return "modelnew";
  return "";
}

namespace {

struct task_file {
  std::string path, suite, stem;
};

result<std::vector<task_file>> list_tasks(const std::vector<std::string>& args) {
  std::vector<task_file> out;
  for (const auto& a : args) {
    std::error_code ec;
    std::vector<fs::path> files;
    if (fs::is_directory(a, ec)) {
      for (const auto& e : fs::directory_iterator(a, ec))
        if (e.is_regular_file() && e.path().extension() == ".py") files.push_back(e.path());
      std::sort(files.begin(), files.end());
      if (files.empty()) return make_error(a + ": no task files (*.py) in this folder");
    } else if (fs::is_regular_file(a, ec)) {
      files.push_back(a);
    } else {
      return make_error(a + ": no such task file or folder");
    }
    for (const auto& f : files) {
      std::string suite = fs::absolute(f).parent_path().filename().string();
      out.push_back({f.string(), suite, f.stem().string()});
    }
  }
  return out;
}

// The level number a suite folder's name ends in ("level1", "level_2"), or -1.
int level_of(const std::string& suite) {
  static const std::regex re(R"((\d+)$)");
  std::smatch m;
  return std::regex_search(suite, m, re) ? std::stoi(m[1]) : -1;
}

// The problem number a KernelBench task file starts with ("23_Softmax"), or -1.
int problem_of(const std::string& stem) {
  static const std::regex re(R"(^(\d+)_)");
  std::smatch m;
  return std::regex_search(stem, m, re) ? std::stoi(m[1]) : -1;
}

}  // namespace

result<std::vector<bench_item>> collect_suite_items(const std::vector<std::string>& suites, const std::string& candidates_dir,
                                                    const std::string& backend) {
  auto tasks = list_tasks(suites);
  if (!tasks) return tasks.err();
  std::map<std::string, std::vector<bench_item>> by_task;  // task path -> its candidates
  std::vector<std::string> suite_names;
  for (const auto& t : *tasks)
    if (std::find(suite_names.begin(), suite_names.end(), t.suite) == suite_names.end()) suite_names.push_back(t.suite);

  auto item_for = [](const task_file& t, const std::string& cand, int sample) {
    bench_item it;
    it.task_name = t.suite + "/" + t.stem;
    it.task_path = t.path;
    it.candidate_path = cand;
    it.format = candidate_format(cand);
    it.sample = sample;
    it.origin = cand;
    return it;
  };

  if (!candidates_dir.empty()) {
    std::error_code ec;
    if (!fs::is_directory(candidates_dir, ec)) return make_error(candidates_dir + ": no such candidates folder");
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(candidates_dir, ec))
      if (e.is_regular_file() && !candidate_format(e.path().string()).empty()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    static const std::regex kb(R"(^level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py$)");
    static const std::regex sample_re(R"(^(.*)\.(\d+)$)");
    for (const auto& f : files) {
      std::string name = f.filename().string(), stem = f.stem().string();
      std::smatch m;
      const task_file* match = nullptr;
      int sample = 0;
      if (std::regex_match(name, m, kb)) {
        int level = std::stoi(m[1]), problem = std::stoi(m[2]);
        sample = std::stoi(m[3]);
        for (const auto& t : *tasks)
          if (problem_of(t.stem) == problem && (suite_names.size() == 1 || level_of(t.suite) == level)) {
            match = &t;
            break;
          }
        if (!match) return make_error(f.string() + ": no task for level " + m[1].str() + ", problem " + m[2].str() +
                                      " (a file named " + m[2].str() + "_*.py in a folder whose name ends in " + m[1].str() + ")");
      } else {
        std::string task_stem = stem;
        if (std::regex_match(stem, m, sample_re)) {
          task_stem = m[1];
          sample = std::stoi(m[2]);
        }
        for (const auto& t : *tasks)
          if (t.stem == task_stem) {
            match = &t;
            break;
          }
        if (!match) return make_error(f.string() + ": no task named " + task_stem + " among the suites given");
      }
      by_task[match->path].push_back(item_for(*match, f.string(), sample));
    }
  }

  std::vector<bench_item> out;
  for (const auto& t : *tasks) {
    auto found = by_task.find(t.path);
    if (found != by_task.end()) {
      out.insert(out.end(), found->second.begin(), found->second.end());
      continue;
    }
    std::error_code ec;
    fs::path sol = fs::path(t.path).parent_path() / "solutions" / (t.stem + (backend == "cuda" ? ".cu" : ".cpp"));
    if (candidates_dir.empty() && fs::is_regular_file(sol, ec)) {
      out.push_back(item_for(t, sol.string(), 0));
      continue;
    }
    bench_item alone;
    alone.task_name = t.suite + "/" + t.stem;
    alone.task_path = t.path;
    out.push_back(std::move(alone));
  }
  return out;
}

result<std::vector<bench_item>> collect_jsonl_items(const std::string& jsonl_path, const std::string& work_dir) {
  std::ifstream in(jsonl_path);
  if (!in) return make_error(jsonl_path + ": cannot read");
  if (auto s = make_dirs(work_dir); !s) return s.err();
  std::vector<bench_item> out;
  std::map<std::string, int> samples;  // task name -> candidates so far
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = jsonl_path + ":" + std::to_string(line_no);
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return make_error(where + ": not a JSON object");
    if (!j.contains("ref_code") || !j["ref_code"].is_string()) return make_error(where + ": no ref_code (a string)");
    // custom_code is null where CUDA-L1 found no speedup: the reference is then timed alone.
    if (!j.contains("custom_code") || !(j["custom_code"].is_string() || j["custom_code"].is_null()))
      return make_error(where + ": no custom_code (a string, or null)");
    auto id = [&](const char* field) -> std::string {
      if (!j.contains(field)) return "?";
      return j[field].is_string() ? j[field].get<std::string>() : json_text(j[field]);
    };
    std::string ref = j["ref_code"];
    std::string task_path = work_dir + "/task-" + sha256_hex(ref).substr(0, 16) + ".py";
    if (!file_exists(task_path))
      if (auto s = write_file_atomic(task_path, ref); !s) return s.err();
    bench_item it;
    it.task_name = "level" + id("level_id") + "/" + id("task_id");
    it.task_path = task_path;
    if (j["custom_code"].is_string()) {
      std::string custom = j["custom_code"];
      std::string cand_path = work_dir + "/candidate-" + sha256_hex(custom).substr(0, 16) + ".py";
      if (!file_exists(cand_path))
        if (auto s = write_file_atomic(cand_path, custom); !s) return s.err();
      it.candidate_path = cand_path;
      it.format = "modelnew";
      it.sample = samples[it.task_name]++;
    }
    it.origin = where;
    // The published score beside the re-judged one: the score against eager
    // PyTorch where the line has it, else the first score_* field.
    json scores = json::object();
    for (const auto& [k, v] : j.items())
      if (k.rfind("score", 0) == 0 && v.is_number()) scores[k] = v;
    for (const char* k : {"score_default", "score", "speedup"})
      if (!it.published_score && j.contains(k) && j[k].is_number()) it.published_score = j[k].get<double>();
    if (!it.published_score && !scores.empty()) it.published_score = scores.begin().value().get<double>();
    if (!scores.empty()) it.published = scores;
    out.push_back(std::move(it));
  }
  if (out.empty()) return make_error(jsonl_path + ": no lines");
  return out;
}

}  // namespace cudal1
