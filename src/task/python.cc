#include "task/python.h"

#include "base/fs.h"
#include "base/subprocess.h"

namespace cudal1 {

std::vector<std::string> python_candidates() {
  std::vector<std::string> out;
  auto add = [&](const std::string& p) {
    if (p.empty()) return;
    for (const auto& o : out)
      if (o == p) return;
    out.push_back(p);
  };
  add(env_or("CUDAL1_PYTHON", ""));
  add(find_in_path("python3"));
  add("/usr/bin/python3");
  add("/usr/local/bin/python3");
  add("/opt/torch/.venv/bin/python3");
  return out;
}

namespace {
result<python_info> probe(const std::string& path) {
  std::string full = path.find('/') == std::string::npos ? find_in_path(path) : path;
  if (full.empty() || !is_executable(full)) return make_error(path + ": not an executable");
  auto r = run_command({full, "-c", "import torch; print(torch.__version__, int(torch.cuda.is_available()))"}, 120);
  if (!r) return r.err();
  if (r->timed_out) return make_error(full + ": importing torch took over 120 s");
  if (!r->exit.exited || r->exit.code != 0) {
    std::string last = tail_lines(r->output, 1);
    return make_error(full + ": " + (last.empty() ? r->exit.describe() : last));
  }
  python_info info;
  info.path = full;
  std::string out = tail_lines(r->output, 1);
  auto space = out.find(' ');
  info.torch_version = out.substr(0, space);
  info.cuda_available = space != std::string::npos && out.substr(space + 1) == "1";
  return info;
}
}  // namespace

result<python_info> find_python(const std::string& chosen) {
  if (!chosen.empty()) {
    auto p = probe(chosen);
    if (!p) return make_error("--python " + chosen + " cannot import torch (" + p.message() + ")");
    return p;
  }
  std::string tried;
  for (const auto& c : python_candidates()) {
    auto p = probe(c);
    if (p) return p;
    tried += "\n  " + p.message();
  }
  return make_error("no Python with PyTorch found; install one (Debian: apt-get install python3-torch) or pass --python PATH. Tried:" + tried);
}

}  // namespace cudal1
