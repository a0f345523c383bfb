// cudal1 export: training data for CUDA-L1's three stages, from the store.
#include <cstdio>
#include <fstream>

#include "base/fs.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "optimize/training_data.h"
#include "store/store.h"

namespace cudal1 {
namespace {

constexpr const char* kExportHelp = R"(usage: cudal1 export --stage 1|2|3 --out FILE.jsonl [--store FILE]

Writes training data for CUDA-L1's three stages from the results store, as
chat-format JSON Lines that TRL and verl read (TRL: "messages", or "prompt"
and "completion"; verl: "prompt" as a chat list):

  stage 1   supervised pairs: each task's reference and each correct kernel
            of it faster than the reference (suites' solutions, bench, the
            optimizer, the server), the prompt the optimizer would ask first
  stage 2   the model's own correct answers from optimizer runs, with the
            prompts it was asked
  stage 3   the optimizer's contrastive prompts with their exemplars and the
            verdicts, rewards and group rewards of the answers

Every row carries the task, its hash, the format, the device and the judge
version of its judgment. Only correct kernels are written: hacks, unstable
re-checks and incorrect or failing kernels never are (stage 3 keeps a bad
answer's verdict and reward, not its code). Rows are deduplicated by content
hash. The fields are documented in src/optimize/training_data.h.

  --stage N      1, 2 or 3
  --out FILE     the JSON Lines file (written whole or not at all)
  --store FILE   the results store (default: $CUDAL1_STORE, else
                 ~/.local/share/cudal1/store.sqlite)
  --min-speedup X  stage 1 keeps kernels faster than X times the reference
                 (default 1)
)";

}  // namespace

int run_export(const args_t& args) {
  option_reader r{args, 0, ""};
  int stage = 0;
  std::string out_path, store_path;
  double min_speedup = 1.0;
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::printf("%s", kExportHelp);
      return 0;
    } else if (flag == "--stage") ok = r.integer(&stage, 1);
    else if (flag == "--out") ok = r.value(&out_path);
    else if (flag == "--store") ok = r.value(&store_path);
    else if (flag == "--min-speedup") ok = r.number(&min_speedup, 0);
    else return usage_error("unknown argument " + a + " (see cudal1 export --help)");
    if (!ok) return usage_error(r.error);
  }
  if (stage < 1 || stage > 3) return usage_error("export needs --stage 1, 2 or 3 (see cudal1 export --help)");
  if (out_path.empty()) return usage_error("export needs --out FILE.jsonl");
  if (store_path.empty()) store_path = store::default_path();
  if (!file_exists(store_path)) return usage_error("export: no store at " + store_path);
  auto db = store::open(store_path);
  if (!db) return usage_error("export: " + db.message());
  auto data = data_dir();
  if (!data) return usage_error("export: " + data.message());
  std::string partial = out_path + ".partial";
  std::ofstream out(partial, std::ios::binary | std::ios::trunc);
  if (!out) return usage_error("export: cannot write " + partial);
  auto counts = export_training_data(*db, stage, *data + "/prompts", out, min_speedup);
  out.close();
  if (!counts || !out) {
    std::remove(partial.c_str());
    return usage_error("export: " + (counts ? "writing " + out_path + " failed" : counts.message()));
  }
  if (std::rename(partial.c_str(), out_path.c_str()) != 0) return usage_error("export: cannot rename to " + out_path);
  std::fprintf(stderr, "cudal1 export: stage %d, %zu rows to %s (%zu duplicates and %zu kernels that were not correct left out)\n",
               stage, counts->rows, out_path.c_str(), counts->duplicates, counts->not_correct);
  return 0;
}

}  // namespace cudal1
