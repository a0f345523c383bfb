#include "cli/commands.h"
namespace cudal1 {
int run_optimize(const args_t&) { return usage_error("optimize: not built yet"); }
int run_best(const args_t&) { return usage_error("best: not built yet"); }
int run_history(const args_t&) { return usage_error("history: not built yet"); }
}  // namespace cudal1
