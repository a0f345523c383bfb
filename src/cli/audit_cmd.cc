// cudal1 audit CANDIDATE...: the static screen of candidate sources.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "audit/static_audit.h"
#include "base/fs.h"
#include "base/json_text.h"
#include "cli/commands.h"

namespace cudal1 {

int run_audit(const args_t& args) {
  bool as_json = false;
  std::vector<std::string> files;
  for (const auto& a : args) {
    if (a == "--json") as_json = true;
    else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: cudal1 audit CANDIDATE... [--json]\n\n"
          "Screens candidate sources against the rule database (share/cudal1/audit/rules.tsv):\n"
          "stream and thread creation, caches keyed on pointers or calls, precision flags,\n"
          "fallbacks to PyTorch, catch-all fallbacks, interposition, timers, cache controls,\n"
          "processes, sockets and files. It flags; a judgment's dynamic checks decide.\n"
          "With --json, one object per candidate: {\"candidate\", \"hits\": [{rule, severity,\n"
          "class, line, text, explanation}]}. Exit status 0 whatever it finds.\n");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option " + a + " (see cudal1 audit --help)");
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) return usage_error("audit needs at least one CANDIDATE (see cudal1 audit --help)");
  auto rules = load_audit_rules();
  if (!rules) return usage_error(rules.message());
  for (const auto& f : files) {
    auto source = read_file(f);
    if (!source) return usage_error(source.message());
    auto hits = audit_source(*source, *rules, source_language(f));
    if (as_json) {
      std::printf("%s\n", json_text(nlohmann::json{{"candidate", f}, {"hits", audit_hits_json(hits)}}).c_str());
      continue;
    }
    std::printf("%s: %zu finding%s\n", f.c_str(), hits.size(), hits.size() == 1 ? "" : "s");
    for (const auto& h : hits)
      std::printf("  %d: [%s] %s (%s): %s\n      %s\n", h.line, h.rule->severity.c_str(), h.rule->id.c_str(),
                  h.rule->cls.c_str(), h.rule->explanation.c_str(), h.text.c_str());
  }
  return 0;
}

}  // namespace cudal1
