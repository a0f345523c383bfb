#include "optimize/training_data.h"

#include <map>
#include <set>

#include "base/json_text.h"
#include "optimize/prompt.h"

namespace cudal1 {

using nlohmann::json;

namespace {

std::string fence_language(const std::string& format) {
  return format == "cuda" ? "cuda" : format == "cpp" ? "cpp" : "python";
}

json chat(const std::string& system, const std::string& user) {
  return json::array({{{"role", "system"}, {"content", system}}, {{"role", "user"}, {"content", user}}});
}

json base_row(int stage, const std::string& task, const std::string& task_hash, const std::string& format,
              const task_kernel* k) {
  json row = {{"stage", stage}, {"task", task}, {"task_hash", task_hash}, {"format", format}};
  if (k) {
    row["device"] = k->device;
    row["judge_version"] = k->judge_version;
    row["precision"] = k->precision;
    row["baseline"] = k->baseline;
  }
  return row;
}

// A task's kernels by candidate hash: the best correct judgment of each
// (task_kernels() lists correct ones first, fastest first).
std::map<std::string, const task_kernel*> best_correct(const std::vector<task_kernel>& kernels, export_counts* counts) {
  std::map<std::string, const task_kernel*> best;
  std::set<std::string> seen_bad;
  for (const auto& k : kernels) {
    if (k.verdict != "correct" || !k.hack_classes.empty()) {
      if (seen_bad.insert(k.candidate_hash).second && counts) ++counts->not_correct;
      continue;
    }
    if (!best.count(k.candidate_hash)) best[k.candidate_hash] = &k;
  }
  return best;
}

status write_stage1(store& db, const std::string& templates, double min_speedup, std::ostream& out,
                    export_counts& counts) {
  auto tasks = db.all_tasks();
  if (!tasks) return tasks.err();
  for (const auto& [task_hash, name] : *tasks) {
    auto source = db.task_source(task_hash);
    if (!source) return source.err();
    auto kernels = db.task_kernels(task_hash);
    if (!kernels) return kernels.err();
    for (const auto& [hash, k] : best_correct(*kernels, &counts)) {
      if (!k->speedup || *k->speedup <= min_speedup) continue;  // the pairs teach faster kernels only
      task_card card = card_from_judgment(name, *source, k->judgment);
      auto prompt = render_prompt(templates, card, k->format, {}, {});
      if (!prompt) return prompt.err();
      std::string answer = "## Performance Analysis\nThe reference takes " +
                           (card.reference_ms ? std::to_string(*card.reference_ms) + " ms" : std::string("its time")) +
                           "; this kernel is " + std::to_string(*k->speedup) + "x faster.\n\n## Algorithm Design\n-\n\n"
                           "## Code Implementation\n```" + fence_language(k->format) + "\n" + k->source +
                           (k->source.ends_with("\n") ? "" : "\n") + "```\n";
      json row = base_row(1, name, task_hash, k->format, k);
      row["prompt"] = chat(prompt->system, prompt->user);
      row["completion"] = json::array({{{"role", "assistant"}, {"content", answer}}});
      row["messages"] = row["prompt"];
      row["messages"].push_back(row["completion"][0]);
      row["candidate_hash"] = hash;
      row["speedup"] = *k->speedup;
      row["verdict"] = "correct";
      out << json_text(row) << "\n";
      ++counts.rows;
    }
  }
  return ok_status();
}

// Stages 2 and 3 read the optimizer's attempts, run by run.
status write_attempt_stages(store& db, int stage, std::ostream& out, export_counts& counts) {
  auto runs = db.runs();
  if (!runs) return runs.err();
  std::map<std::string, std::vector<task_kernel>> kernels_of;  // task_hash -> kernels
  auto kernels_for = [&](const std::string& task_hash) -> result<const std::vector<task_kernel>*> {
    auto it = kernels_of.find(task_hash);
    if (it == kernels_of.end()) {
      auto ks = db.task_kernels(task_hash);
      if (!ks) return ks.err();
      it = kernels_of.emplace(task_hash, std::move(*ks)).first;
    }
    return &it->second;
  };
  std::set<std::string> written;  // candidate hashes (stage 2), prompt keys (stage 3)
  for (const auto& run : *runs) {
    auto attempts = db.attempts(run.run_id);
    if (!attempts) return attempts.err();
    // Stage 3: the attempts of one task and round are one group.
    std::map<std::pair<std::string, int>, std::vector<const attempt_record*>> groups;
    for (const auto& a : *attempts) {
      if (a.status != "judged") continue;
      if (stage == 3) {
        groups[{a.task_hash, a.round}].push_back(&a);
        continue;
      }
      auto ks = kernels_for(a.task_hash);
      if (!ks) return ks.err();
      auto best = best_correct(**ks, nullptr);
      auto k = best.find(a.candidate_hash);
      if (a.verdict != "correct" || k == best.end()) {
        ++counts.not_correct;
        continue;
      }
      if (!written.insert(a.candidate_hash).second) {
        ++counts.duplicates;
        continue;
      }
      json row = base_row(2, a.task_name, a.task_hash, k->second->format, k->second);
      row["prompt"] = chat(a.prompt.value("system", ""), a.prompt.value("user", ""));
      row["completion"] = json::array({{{"role", "assistant"}, {"content", a.answer}}});
      row["messages"] = row["prompt"];
      row["messages"].push_back(row["completion"][0]);
      row["candidate_hash"] = a.candidate_hash;
      row["speedup"] = k->second->speedup ? json(*k->second->speedup) : json();
      row["verdict"] = "correct";
      row["model"] = a.model;
      out << json_text(row) << "\n";
      ++counts.rows;
    }
    for (const auto& [key, group] : groups) {
      // One row per distinct prompt of the group (samples of one prompt share it).
      std::map<std::string, std::vector<const attempt_record*>> by_prompt;
      for (const auto* a : group) by_prompt[json_text(a->prompt)].push_back(a);
      for (const auto& [prompt_text, answers] : by_prompt) {
        const attempt_record& first = *answers.front();
        std::string prompt_key = first.task_hash + "\n" + prompt_text;
        if (!written.insert(prompt_key).second) {
          ++counts.duplicates;
          continue;
        }
        auto ks = kernels_for(first.task_hash);
        if (!ks) return ks.err();
        auto best = best_correct(**ks, nullptr);
        const task_kernel* any = best.empty() ? nullptr : best.begin()->second;
        json list = json::array();
        for (const auto* a : answers) {
          json e = {{"verdict", a->verdict}, {"speedup", a->speedup ? json(*a->speedup) : json()},
                    {"reward", a->reward ? json(*a->reward) : json()},
                    {"group_reward", a->group_reward ? json(*a->group_reward) : json()}};
          // A rejected or failing answer's code stays out of the file: its verdict and reward only.
          e["candidate_hash"] = a->verdict == "correct" ? json(a->candidate_hash) : json();
          if (a->verdict != "correct") ++counts.not_correct;
          list.push_back(std::move(e));
        }
        std::string format = run.settings.value("format", "");
        if (format == "native") format = run.settings.value("backend", "") == "cuda" ? "cuda" : "cpp";
        json row = base_row(3, first.task_name, first.task_hash, format, any);
        row["prompt"] = chat(first.prompt.value("system", ""), first.prompt.value("user", ""));
        row["exemplars"] = first.exemplars;
        row["answers"] = list;
        row["run"] = run.name;
        row["round"] = first.round;
        row["model"] = first.model;
        out << json_text(row) << "\n";
        ++counts.rows;
      }
    }
  }
  return ok_status();
}

}  // namespace

result<export_counts> export_training_data(store& db, int stage, const std::string& templates_dir, std::ostream& out,
                                           double min_speedup) {
  if (stage < 1 || stage > 3) return make_error("--stage must be 1, 2 or 3");
  export_counts counts;
  status s = stage == 1 ? write_stage1(db, templates_dir, min_speedup, out, counts) : write_attempt_stages(db, stage, out, counts);
  if (!s) return s.err();
  return counts;
}

}  // namespace cudal1
