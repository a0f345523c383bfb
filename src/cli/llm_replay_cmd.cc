#include "cli/commands.h"
namespace cudal1 {
int run_llm_replay(const args_t&) { return usage_error("llm-replay: not built yet"); }
}  // namespace cudal1
