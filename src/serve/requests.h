// What `cudal1 serve` is asked, taken apart: the tasks it knows, one judge
// request in cudal1's own shape, and the code of an LLM answer; each bad
// input gets the HTTP status and the message the client sees. The trainers'
// shapes (OpenRLHF, slime, KernelGYM) are thin adapters over these, in
// server.cc.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "serve/service.h"

namespace cudal1 {

struct task_entry {
  std::string name;    // "level1/softmax": the folder's name and the file's stem
  std::string path;
  std::string source;
};

/// The tasks a server judges: every *.py of the folders given (and files
/// given by name).
class task_catalog {
 public:
  /// Errors: a folder or file that does not exist, or no task at all.
  static result<task_catalog> load(const std::vector<std::string>& paths);
  /// By "folder/stem", by a stem no other task has, either with ".py"; null
  /// with *why set (unknown, or which tasks share the stem).
  const task_entry* find(const std::string& name, std::string* why) const;
  /// The task whose source is this text (trailing whitespace aside): how a
  /// KernelGYM request, which sends the reference's code, names its task.
  const task_entry* find_by_source(const std::string& source) const;
  const std::vector<task_entry>& tasks() const { return tasks_; }

 private:
  std::vector<task_entry> tasks_;
};

/// A request the server refuses: the status (400, 404, 413, 422) and why.
struct request_error {
  int status = 400;
  std::string message;
};

template <class T>
using parsed = std::variant<T, request_error>;

struct request_limits {
  size_t max_code_bytes = 256 * 1024;
  std::string backend = "cpu";           // what this server judges on
  reward_kind reward = reward_kind::cuda_l1;  // when a request names none
  /// --allow-inline-tasks: a "reference_code" that is none of the server's
  /// tasks is judged as a task of its own, kept (by content hash) in
  /// inline_dir, its reference sealed as a candidate is (untrusted_task).
  bool allow_inline_tasks = false;
  std::string inline_dir;
};

/// The candidate in a text that is code or a whole LLM answer: the answer's
/// code block as the optimizer takes it (has_code false, with the reason, for
/// an answer without usable code). `format` may be empty: a ModelNew class
/// makes it "modelnew", else the server's native format.
struct taken_code {
  bool has_code = false;
  std::string code, format, problem;
};
parsed<taken_code> take_code(const std::string& text, const std::string& format, const request_limits& limits);

/// cudal1's shape: {"task": NAME, "code": TEXT, "format": F, "options": {...},
/// "reward": KIND, "fresh": BOOL}; "reference_code" may name the task by its
/// source instead. `code` (the out-parameter) says whether the text had
/// code; a request without code is not an error (it is scored as such).
parsed<judge_request> parse_judge_request(const nlohmann::json& body, const task_catalog& tasks,
                                          const request_limits& limits, taken_code* code);

/// The judge options a request may set, checked: profile (string), precision
/// (fp32, tf32, bf16), baseline (eager, compile, cuda_graph), trials (1-20).
/// Not the seed: the inputs a judgment draws stay the judge's secret (a
/// client that fixed them could send a candidate that looks its answers up).
parsed<nlohmann::json> check_options(const nlohmann::json& options);

/// `base` with a job's options applied: those above, and the ones the server
/// itself sets ("seed" for a competition's hidden runs, "untrusted_task" for
/// an inline reference). The server and the queue's workers judge alike.
judge_options with_job_options(judge_options base, const nlohmann::json& options);

}  // namespace cudal1
