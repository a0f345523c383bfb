#include "competition/competition.h"

#include <gtest/gtest.h>

#include "base/fs.h"
#include "base/sha256.h"

namespace cudal1 {
namespace {

using nlohmann::json;

constexpr const char* kTask = R"("""Scaled copy: y = x * s.

More text.
"""
import torch

batch_size = 64
dim = 128

cudal1_profiles = {"cpu": {"batch_size": 8, "dim": 16}}
)";

class CompetitionFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = *make_temp_dir("competition-test");
    ASSERT_TRUE(write_file_atomic(dir_ + "/scale.py", kTask));
    ASSERT_TRUE(write_file_atomic(dir_ + "/carol.token", "\n  carol-token \n"));
    base_ = {{"name", "cup"},
             {"start", "2026-01-01T00:00:00Z"},
             {"end", "2026-01-02T00:00:00+01:00"},
             {"tasks", {{{"file", "scale.py"}, {"public_profile", "cpu"},
                         {"hidden", {{{"sizes", {{"batch_size", 33}, {"dim", 1531}}}, {"seed", 7}}, {{"profile", "cpu"}}}}}}},
             {"participants", {{{"name", "alice"}, {"token_sha256", sha256_hex("alice-token")}},
                               {{"name", "carol"}, {"token_file", "carol.token"}}}}};
  }
  void TearDown() override { remove_tree(dir_); }
  result<competition> load(const json& j) {
    EXPECT_TRUE(write_file_atomic(dir_ + "/c.json", j.dump()));
    return load_competition(dir_ + "/c.json");
  }
  std::string error_of(const json& j) {
    auto c = load(j);
    return c ? "" : c.message();
  }
  std::string dir_;
  json base_;
};

TEST_F(CompetitionFile, ReadsTasksEntrantsWindowAndDefaults) {
  auto c = load(base_);
  ASSERT_TRUE(c) << c.message();
  EXPECT_EQ(c->backend, "cpu");
  EXPECT_EQ(c->ranking, "time");
  EXPECT_EQ(c->end_unix - c->start_unix, 23 * 3600);  // the end's +01:00 offset
  ASSERT_EQ(c->tasks.size(), 1u);
  const competition_task& t = c->tasks[0];
  EXPECT_EQ(t.name, "scale");
  EXPECT_EQ(t.title, "Scaled copy: y = x * s.");
  ASSERT_EQ(t.hidden.size(), 2u);
  EXPECT_EQ(t.hidden[0].profile, "cudal1_hidden_1");
  EXPECT_EQ(t.hidden[0].seed.value_or(0), 7u);
  EXPECT_EQ(t.hidden[1].profile, "cpu");
  EXPECT_FALSE(t.hidden[1].seed.has_value());
  ASSERT_EQ(c->participants.size(), 2u);
  // A token is found by its hash, from the file (trimmed) or given as one.
  ASSERT_NE(c->find_by_token("carol-token"), nullptr);
  EXPECT_EQ(c->find_by_token("carol-token")->name, "carol");
  EXPECT_EQ(c->find_by_token("alice-token")->name, "alice");
  EXPECT_EQ(c->find_by_token("alice-token "), nullptr);
  EXPECT_EQ(c->find_by_token(""), nullptr);
  EXPECT_EQ(c->state_at(c->start_unix - 1), "before");
  EXPECT_EQ(c->state_at(c->start_unix), "open");
  EXPECT_EQ(c->state_at(c->end_unix), "ended");
}

TEST_F(CompetitionFile, ThePublicViewHoldsNoHiddenRunNorToken) {
  auto c = load(base_);
  ASSERT_TRUE(c) << c.message();
  std::string text = c->public_json(c->start_unix).dump();
  EXPECT_EQ(text.find("1531"), std::string::npos);
  EXPECT_EQ(text.find("cudal1_hidden"), std::string::npos);
  EXPECT_EQ(text.find(sha256_hex("alice-token")), std::string::npos);
  EXPECT_NE(text.find("\"hidden_runs\":2"), std::string::npos);
}

TEST_F(CompetitionFile, TheJudgesCopyAddsTheHiddenSizesToTheTasksProfiles) {
  auto c = load(base_);
  ASSERT_TRUE(c) << c.message();
  ASSERT_TRUE(write_judge_files(*c, dir_));
  const competition_task& t = c->tasks[0];
  EXPECT_EQ(t.judge_file, dir_ + "/scale.py");  // beside it here; serve writes into a private folder
  EXPECT_EQ(t.judge_source.rfind(kTask, 0), 0u);
  EXPECT_NE(t.judge_source.find("cudal1_profiles[\"cudal1_hidden_1\"] = {\"batch_size\": 33, \"dim\": 1531}"),
            std::string::npos);
  EXPECT_EQ(*read_file(t.judge_file), t.judge_source);
  EXPECT_EQ(t.source, kTask);  // what entrants see is unchanged
}

TEST_F(CompetitionFile, ErrorsNameTheFieldAtFault) {
  auto with = [&](const char* pointer, const json& v) {
    json j = base_;
    j[json::json_pointer(pointer)] = v;
    return error_of(j);
  };
  EXPECT_NE(with("/start", "yesterday").find("start: 'yesterday' is not a time"), std::string::npos);
  EXPECT_NE(with("/end", "2025-01-01T00:00:00Z").find("end: must be after start"), std::string::npos);
  EXPECT_NE(with("/ranking", "fastest").find("ranking: must be time"), std::string::npos);
  EXPECT_NE(with("/backend", "tpu").find("backend: must be cpu or cuda"), std::string::npos);
  EXPECT_NE(with("/tasks/0/file", "nope.py").find("tasks[0]: task file"), std::string::npos);
  EXPECT_NE(with("/tasks/0/public_profile", "big").find("no size profile 'big'"), std::string::npos);
  EXPECT_NE(with("/tasks/0/hidden", json::array()).find("at least one hidden run"), std::string::npos);
  EXPECT_NE(with("/tasks/0/hidden/0/sizes", {{"rows", 3}}).find("defines no module global 'rows'"), std::string::npos);
  EXPECT_NE(with("/tasks/0/hidden/0/sizes/dim", json::array({1, 2})).find("a size must be"), std::string::npos);
  EXPECT_NE(with("/tasks/0/hidden/1/profile", "p100").find("tasks[0].hidden[1]: the task file has no size profile"),
            std::string::npos);
  EXPECT_NE(with("/tasks/0/hidden/0/seed", -1).find("'seed' must be"), std::string::npos);
  EXPECT_NE(with("/participants/0/token", "plain").find("not written in plain text"), std::string::npos);
  EXPECT_NE(with("/participants/0/token_sha256", "abc").find("64 hex digits"), std::string::npos);
  EXPECT_NE(with("/participants/1/name", "alice").find("two entrants are named 'alice'"), std::string::npos);
  EXPECT_NE(with("/participants/1/token_file", "missing.token").find("participants[1]: token_file"), std::string::npos);
  EXPECT_NE(with("/limits", {{"submissions", 0}}).find("limits: 'submissions' must be"), std::string::npos);
  EXPECT_NE(with("/prize", 100).find("unknown field 'prize'"), std::string::npos);
  json same_token = base_;
  same_token["participants"][1] = {{"name", "bob"}, {"token_sha256", sha256_hex("alice-token")}};
  EXPECT_NE(error_of(same_token).find("has the token of another entrant"), std::string::npos);
  json two_tasks = base_;
  two_tasks["tasks"].push_back(base_["tasks"][0]);
  EXPECT_NE(error_of(two_tasks).find("two tasks are named 'scale'"), std::string::npos);
  ASSERT_TRUE(write_file_atomic(dir_ + "/bad.json", "{not json"));
  EXPECT_NE(load_competition(dir_ + "/bad.json").message().find("not JSON"), std::string::npos);
}

TEST(CompetitionTime, ParsesUtcAndOffsetsAndFormatsUtc) {
  EXPECT_EQ(*parse_utc_time("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*parse_utc_time("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_EQ(*parse_utc_time("1970-01-01 00:01Z"), 60);
  EXPECT_EQ(*parse_utc_time("1969-12-31T23:30:00-00:30"), 0);
  EXPECT_FALSE(parse_utc_time("2026-13-01T00:00:00Z"));
  EXPECT_FALSE(parse_utc_time("2026-01-01T00:00:00"));  // no zone: ambiguous
  EXPECT_EQ(format_utc_time(1796321061), "2026-12-03T18:04:21Z");
  EXPECT_EQ(*parse_utc_time(format_utc_time(1796321061)), 1796321061);
}

}  // namespace
}  // namespace cudal1
