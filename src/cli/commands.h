// The subcommands of the cudal1 program; main.cc holds the table.
#pragma once

#include <string>
#include <vector>

namespace cudal1 {

using args_t = std::vector<std::string>;

int run_eval(const args_t& args);
int run_info(const args_t& args);
int run_audit(const args_t& args);
int run_audit_task(const args_t& args);
int run_suite(const args_t& args);
int run_bench(const args_t& args);
int run_report(const args_t& args);
int run_compare(const args_t& args);
int run_optimize(const args_t& args);
int run_best(const args_t& args);
int run_history(const args_t& args);
int run_llm_replay(const args_t& args);
int run_serve(const args_t& args);
int run_submit(const args_t& args);
int run_export(const args_t& args);
int run_worker_cmd(const args_t& args);
int run_prepare(const args_t& args);

/// Prints "cudal1: error: message" to stderr and returns the usage exit status (2).
int usage_error(const std::string& message);

}  // namespace cudal1
