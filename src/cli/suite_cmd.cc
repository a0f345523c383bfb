// cudal1 suite DIR|TASK...: a whole suite, task by task. Each task's native
// solution (DIR/solutions/<stem>.cu or .cpp) is judged when there is one;
// otherwise the reference alone is timed. The table this prints is the one
// suites/README.md keeps.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_text.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "judge/judge.h"
#include "report/report.h"

namespace cudal1 {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kSuiteHelp = R"(usage: cudal1 suite DIR|TASK... [options]

Runs task suites: every task (each *.py in each DIR, in name order, or a TASK
file named directly), one after another. A task with a native solution
(DIR/solutions/<task stem>.cu on the CUDA backend, .cpp on the CPU backend)
gets a full judgment of it; any other task gets its reference timed alone, the
way a judgment times it. One line per task as it goes; at the end a Markdown
table (task, reference median, solution verdict, speedup, fraction of the
speed-of-light floor) and the geometric-mean speedup of the correct solutions.

options:
  --backend auto|cpu|cuda   auto: cuda when the machine has an NVIDIA GPU
  --no-solutions            time the references only
  --json FILE               write one JSON object per task to FILE
  --markdown FILE           write the table to FILE instead of stdout
  -q, --quiet               no per-phase progress (the per-task lines stay)
)";

constexpr const char* kSuiteExit = R"(
Exit status: 0 when every task was measured (whatever the verdicts); 1 when
some task could not be (its error is in the output and the JSON); 2 for
unusable input.
)";

struct task_entry {
  std::string path, suite, stem, solution;  // solution: empty when none
};

// The tasks named by the arguments, in order; a folder contributes its *.py.
result<std::vector<task_entry>> collect_tasks(const std::vector<std::string>& args, const std::string& ext, bool solutions) {
  std::vector<task_entry> out;
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
      task_entry t;
      t.path = f.string();
      t.stem = f.stem().string();
      t.suite = fs::absolute(f).parent_path().filename().string();
      fs::path sol = f.parent_path() / "solutions" / (t.stem + ext);
      if (solutions && fs::is_regular_file(sol, ec)) t.solution = sol.string();
      out.push_back(std::move(t));
    }
  }
  return out;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

json summary_json(const sample_summary& s) {
  return {{"median_ms", s.median_ms}, {"rel_iqr", s.rel_iqr}, {"samples", s.samples}};
}

// One task's row, measured; "error" holds a setup failure.
json measure_task(const task_entry& t, const judge_options& opt, progress_sink& progress) {
  json row = {{"task", t.suite + "/" + t.stem}, {"path", t.path}};
  if (t.solution.empty()) {
    auto r = time_reference(t.path, opt, progress);
    if (!r) return row.update({{"error", r.message()}}), row;
    row["backend"] = r->backend;
    row["profile"] = r->profile.empty() ? json() : json(r->profile);
    row["reference"] = summary_json(r->summary);
    row["reference_speed_of_light"] = r->speed_of_light;
    return row;
  }
  auto j = judge_candidate(t.path, t.solution, opt, progress);
  if (!j) return row.update({{"error", j.message()}}), row;
  row["backend"] = j->backend;
  row["profile"] = j->profile.empty() ? json() : json(j->profile);
  row["solution"] = t.solution;
  row["judgment"] = judgment_to_json(*j);
  row["verdict"] = to_string(j->outcome);
  if (j->reference.summary) row["reference"] = summary_json(*j->reference.summary);
  if (j->speedup) row["speedup"] = *j->speedup;
  if (j->speed_of_light.is_object() && j->speed_of_light.contains("fraction"))
    row["sol_fraction"] = j->speed_of_light["fraction"];
  if (j->outcome != verdict::correct) row["message"] = j->message.substr(0, j->message.find('\n'));
  return row;
}

std::string one_line(const json& row) {
  std::string s = row["task"].get<std::string>();
  if (row.contains("error")) return s + "  error: " + row["error"].get<std::string>().substr(0, 200);
  if (row.contains("reference")) s += "  reference " + fmt("%.4g ms", row["reference"]["median_ms"].get<double>());
  if (!row.contains("verdict")) return s;
  s += "  solution " + row["verdict"].get<std::string>();
  if (row.contains("speedup")) s += " " + fmt("%.3gx", row["speedup"].get<double>());
  if (row.contains("sol_fraction")) s += ", " + fmt("%.0f%%", 100 * row["sol_fraction"].get<double>()) + " of the floor";
  if (row.contains("message")) s += " (" + row["message"].get<std::string>().substr(0, 160) + ")";
  return s;
}

std::string table(const std::vector<json>& rows, const std::string& backend_desc) {
  std::string out = "| task | reference (ms) | solution | speedup | fraction of floor |\n|---|---:|---|---:|---:|\n";
  double log_sum = 0;
  int n = 0;
  for (const auto& row : rows) {
    out += "| `" + row["task"].get<std::string>() + "` | ";
    if (row.contains("error")) {
      out += "error | | | |\n";
      continue;
    }
    out += (row.contains("reference") ? fmt("%.3f", row["reference"]["median_ms"].get<double>()) : std::string()) + " | ";
    if (!row.contains("verdict")) {
      out += "— | | |\n";
      continue;
    }
    out += row["verdict"].get<std::string>() + " | ";
    bool counted = row["verdict"] == "correct" && row.contains("speedup");
    out += counted ? fmt("%.2f×", row["speedup"].get<double>()) : std::string();
    out += " | ";
    out += row.contains("sol_fraction") ? fmt("%.0f%%", 100 * row["sol_fraction"].get<double>()) : std::string();
    out += " |\n";
    if (counted) {
      log_sum += std::log(row["speedup"].get<double>());
      ++n;
    }
  }
  if (n) out += "\nGeometric-mean speedup of the " + std::to_string(n) + " correct solutions: " + fmt("%.2f×", std::exp(log_sum / n)) + "\n";
  if (!backend_desc.empty()) out += "\nMeasured on " + backend_desc + ".\n";
  return out;
}

}  // namespace

int run_suite(const args_t& args) {
  judge_options opt;
  bool quiet = false, solutions = true;
  std::string json_path, markdown_path;
  std::vector<std::string> positional;
  option_reader r{args, 0, ""};
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::printf("%s%s%s", kSuiteHelp, kJudgeOptionsHelp, kSuiteExit);
      return 0;
    } else if (a == "-q" || a == "--quiet") quiet = true;
    else if (a == "--no-solutions") solutions = false;
    else if (flag == "--json") ok = r.value(&json_path);
    else if (flag == "--markdown") ok = r.value(&markdown_path);
    else if (read_judge_option(r, opt, &ok)) {
    } else if (!a.empty() && a[0] == '-') return usage_error("unknown option " + a + " (see cudal1 suite --help)");
    else positional.push_back(a);
    if (!ok) return usage_error(r.error);
  }
  if (positional.empty()) return usage_error("suite needs at least one suite folder or task (see cudal1 suite --help)");
  if (opt.backend == "auto") opt.backend = auto_backend();
  if (opt.backend != "cpu" && opt.backend != "cuda")
    return usage_error("--backend must be auto, cpu or cuda, not '" + opt.backend + "'");
  auto tasks = collect_tasks(positional, opt.backend == "cuda" ? ".cu" : ".cpp", solutions);
  if (!tasks) return usage_error(tasks.message());

  std::ofstream json_out;
  if (!json_path.empty()) {
    json_out.open(json_path);
    if (!json_out) return usage_error("cannot write " + json_path);
  }
  stderr_progress progress(!quiet);
  std::vector<json> rows;
  std::string device;
  bool all_measured = true;
  for (size_t i = 0; i < tasks->size(); ++i) {
    const task_entry& t = (*tasks)[i];
    std::fprintf(stderr, "[%zu/%zu] %s/%s%s\n", i + 1, tasks->size(), t.suite.c_str(), t.stem.c_str(),
                 t.solution.empty() ? "" : " (with its solution)");
    json row = measure_task(t, opt, progress);
    all_measured = all_measured && !row.contains("error");
    if (device.empty() && row.contains("judgment")) device = row["judgment"]["device"].value("name", "");
    std::printf("%s\n", one_line(row).c_str());
    std::fflush(stdout);
    if (json_out) json_out << json_text(row) << "\n" << std::flush;  // nothing lost if a later task hangs
    rows.push_back(std::move(row));
  }
  std::string md = table(rows, device.empty() ? "" : device + " (" + opt.backend + " backend)");
  if (markdown_path.empty()) {
    std::printf("\n%s", md.c_str());
  } else if (auto s = write_file_atomic(markdown_path, md); !s) {
    std::fprintf(stderr, "cudal1: error: %s\n", s.message().c_str());
    return 2;
  }
  return all_measured ? 0 : 1;
}

}  // namespace cudal1
