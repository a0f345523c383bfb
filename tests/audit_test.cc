#include "audit/static_audit.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "base/fs.h"

namespace cudal1 {
namespace {

std::vector<audit_rule> rules_from_source_tree() {
  auto text = read_file(std::string(CUDAL1_SOURCE_DIR) + "/data/audit-rules.tsv");
  EXPECT_TRUE(text.ok());
  auto rules = parse_audit_rules(*text);
  EXPECT_TRUE(rules.ok()) << rules.message();
  return rules.ok() ? *rules : std::vector<audit_rule>{};
}

bool hits_rule(const std::string& source, const audit_rule& rule) {
  std::vector<audit_rule> one = {rule};  // hits point into the rules: keep them alive
  for (const auto& h : audit_source(source, one, rule.scope == "python" ? "python" : "native"))
    if (h.rule->id == rule.id) return true;
  return false;
}

// Every rule carries its own test: an example it must flag and a near miss
// it must not.
TEST(AuditRules, EveryRuleFlagsItsExampleAndNotItsNearMiss) {
  auto rules = rules_from_source_tree();
  ASSERT_GE(rules.size(), 15u);
  std::set<std::string> ids;
  for (const auto& r : rules) {
    EXPECT_TRUE(ids.insert(r.id).second) << "duplicate rule id " << r.id;
    EXPECT_TRUE(hits_rule(r.example_hit, r)) << r.id << " misses its example: " << r.example_hit;
    EXPECT_FALSE(hits_rule(r.example_miss, r)) << r.id << " flags its near miss: " << r.example_miss;
  }
}

TEST(AuditRules, CoverTheHackClassesOfTheIssue) {
  std::set<std::string> classes;
  for (const auto& r : rules_from_source_tree()) classes.insert(r.cls);
  for (const char* c : {"side_stream", "background_thread", "replay", "precision_downgrade", "library_fallback", "fallback",
                        "tampering", "cache_game", "timer_tampering", "sandbox_escape"})
    EXPECT_TRUE(classes.count(c)) << c;
}

TEST(AuditRules, MalformedFilesAreErrors) {
  EXPECT_FALSE(parse_audit_rules("only\ttwo\n").ok());
  EXPECT_FALSE(parse_audit_rules("id\turgent\tc\tx\te\th\tm\tany\n").ok());
  EXPECT_FALSE(parse_audit_rules("id\thigh\tc\t([\te\th\tm\tany\n").ok());
  EXPECT_FALSE(parse_audit_rules("id\thigh\tc\tx\te\tx\ty\tperl\n").ok());
  EXPECT_TRUE(parse_audit_rules("# a comment\n\nid\thigh\tc\tx\te\tx\ty\tany\n").ok());
}

TEST(StripComments, BlanksCommentsKeepsCodeStringsAndLines) {
  std::string s = "int a; // std::thread\n/* cudaStreamCreate(\n */ int b = 1; \"// kept\"\n";
  std::string t = strip_comments(s);
  EXPECT_EQ(t.size(), s.size());
  EXPECT_EQ(t.find("std::thread"), std::string::npos);
  EXPECT_EQ(t.find("cudaStreamCreate"), std::string::npos);
  EXPECT_NE(t.find("int b = 1;"), std::string::npos);
  EXPECT_NE(t.find("\"// kept\""), std::string::npos);
  EXPECT_EQ(std::count(t.begin(), t.end(), '\n'), 3);
}

TEST(AuditSource, RulesReadTheirOwnLanguage) {
  auto rules = rules_from_source_tree();
  auto ids = [&](const std::string& src, const std::string& lang) {
    std::set<std::string> out;
    for (const auto& h : audit_source(src, rules, lang)) out.insert(h.rule->id);
    return out;
  };
  std::string py = "import threading\nsrc = \"\"\"\ncudaStreamCreate(&s);\nout = torch::empty_like(x);\n\"\"\"\n";
  auto in_python = ids(py, "python");
  EXPECT_TRUE(in_python.count("py-thread"));       // a Python rule
  EXPECT_TRUE(in_python.count("stream-create"));   // an any-source rule, in the embedded CUDA
  EXPECT_FALSE(in_python.count("torch-call"));     // a native-only rule: a ModelNew calls torch by design
  EXPECT_FALSE(ids(py, "native").count("py-thread"));
  EXPECT_EQ(source_language("a/b.py"), "python");
  EXPECT_EQ(source_language("a/b.cu"), "native");
}

TEST(AuditSource, ReportsLinesOfTheOriginal) {
  auto rules = rules_from_source_tree();
  auto hits = audit_source("int f() {\n  static int calls = 0;\n  return ++calls;\n}\n", rules);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].rule->id, "call-counter");
  EXPECT_EQ(hits[0].line, 2);
  EXPECT_EQ(hits[0].text, "static int calls = 0;");
}

// The honest examples raise no high-severity finding; each CPU hack in the
// corpus raises at least one finding.
TEST(AuditExamples, HonestCleanHacksFlagged) {
  auto rules = rules_from_source_tree();
  namespace fs = std::filesystem;
  for (const auto& entry : fs::recursive_directory_iterator(std::string(CUDAL1_SOURCE_DIR) + "/examples")) {
    std::string path = entry.path().string(), name = entry.path().filename().string();
    std::string ext = entry.path().extension().string();
    if (ext != ".cpp" && ext != ".cu" && ext != ".py") continue;
    if (name == "task.py") continue;
    auto hits = audit_source(*read_file(path), rules, source_language(path));
    if (name == "correct.cpp" || name == "correct.cu" || name.rfind("modelnew_correct", 0) == 0) {
      for (const auto& h : hits) EXPECT_NE(h.rule->severity, "high") << path << ": " << h.rule->id;
    }
    if (name.rfind("hack_", 0) == 0 && name != "hack_shrink.cpp" && name != "hack_bf16.cpp") {
      EXPECT_FALSE(hits.empty()) << path << " raises no finding";
    }
  }
}

}  // namespace
}  // namespace cudal1
