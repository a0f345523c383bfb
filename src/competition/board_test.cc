#include "competition/board.h"

#include <gtest/gtest.h>

namespace cudal1 {
namespace {

using nlohmann::json;

run_outcome ok() { return run_outcome{true, "correct", {}, ""}; }
run_outcome got(const std::string& verdict, std::vector<std::string> hacks = {}) {
  return run_outcome{true, verdict, std::move(hacks), ""};
}

competition two_tasks(const std::string& ranking = "time") {
  competition c;
  c.name = "cup";
  c.ranking = ranking;
  c.start_unix = 1000;
  c.end_unix = 100000;
  c.tasks.resize(2);
  c.tasks[0].name = "swish";
  c.tasks[1].name = "softmax";
  return c;
}

submission standing(int64_t id, const std::string& who, const std::string& task, double ms, double speedup,
                    int64_t submitted_s, const std::string& device = "NVIDIA H200") {
  submission s;
  s.id = id;
  s.participant = who;
  s.task = task;
  s.submitted_ms = submitted_s * 1000;
  s.device = device;
  settle_submission(s, ok(), {ok()});
  s.time_ms = ms;
  s.speedup = speedup;
  return s;
}

TEST(SettleSubmission, EveryRunCorrectStands) {
  submission s;
  settle_submission(s, ok(), {ok(), ok()});
  EXPECT_EQ(s.state, "done");
  EXPECT_EQ(s.verdict, "correct");
  EXPECT_TRUE(s.standing);
  EXPECT_EQ(s.hidden_verdict, "pass");
  EXPECT_EQ(s.part, "");
}

TEST(SettleSubmission, APublicFailureIsTheVerdictAndNoHiddenRunIsMade) {
  submission s;
  settle_submission(s, got("incorrect"), {});
  EXPECT_EQ(s.verdict, "incorrect");
  EXPECT_EQ(s.part, "public");
  EXPECT_EQ(s.hidden_verdict, "not_run");
  EXPECT_FALSE(s.standing);
  settle_submission(s, got("rejected", {"background_thread"}), {});
  EXPECT_EQ(s.verdict, "rejected");
  EXPECT_EQ(s.verdict_class, "background_thread");
}

TEST(SettleSubmission, AHiddenFailureFailsWithItsClassAndARejectionWins) {
  submission s;
  settle_submission(s, ok(), {ok(), got("incorrect")});
  EXPECT_EQ(s.verdict, "incorrect");
  EXPECT_EQ(s.part, "hidden");
  EXPECT_EQ(s.verdict_class, "incorrect");
  EXPECT_EQ(s.hidden_verdict, "fail");
  EXPECT_FALSE(s.standing);
  settle_submission(s, ok(), {got("timeout"), got("rejected", {"replay", "timer_tampering"})});
  EXPECT_EQ(s.verdict, "rejected");
  EXPECT_EQ(s.verdict_class, "replay,timer_tampering");
}

TEST(SettleSubmission, AHiddenRunCudal1CouldNotJudgeFailsWithoutItsMessage) {
  submission s;
  settle_submission(s, ok(), {run_outcome{false, "", {}, "profile 'cudal1_hidden_1' sets 'rows' (1531)"}});
  EXPECT_EQ(s.state, "failed");
  EXPECT_EQ(s.error.find("1531"), std::string::npos);
  EXPECT_FALSE(s.standing);
}

TEST(SubmissionView, ShowsTheHiddenRunsAsAVerdictOnlyAndTheCodeToItsEntrant) {
  submission s;
  s.id = 3;
  s.participant = "bob";
  s.code = "int cudal1_forward();";
  json judgment = {{"verdict", "correct"}, {"task", "/tmp/private/swish.py"}, {"candidate_path", "/tmp/x.cpp"},
                   {"message", "compiler said: int cudal1_forward();"}, {"candidate", {{"median_ms", 1.5}}},
                   {"reference", {{"median_ms", 3.0}}}, {"speedup", 2.0}, {"device", {{"name", "NVIDIA H200"}}},
                   {"speed_of_light", {{"fraction", 0.5}}}, {"checks", {{{"name", "correctness"}, {"pass", true}, {"reason", "r"}}}}};
  take_public_judgment(s, judgment);
  s.hidden_judgments = json::array({{{"profile", "cudal1_hidden_1"}, {"seed", 913377}}});
  settle_submission(s, ok(), {got("incorrect")});
  EXPECT_EQ(*s.time_ms, 1.5);
  EXPECT_EQ(*s.reference_ms, 3.0);
  EXPECT_EQ(*s.sol_fraction, 0.5);
  EXPECT_EQ(s.device, "NVIDIA H200");
  json mine = submission_view(s, true), theirs = submission_view(s, false);
  for (const json* v : {&mine, &theirs}) {
    std::string text = v->dump();
    EXPECT_EQ(text.find("913377"), std::string::npos);
    EXPECT_EQ(text.find("cudal1_hidden"), std::string::npos);
    EXPECT_EQ(text.find("/tmp/private"), std::string::npos);
    EXPECT_EQ((*v)["hidden"], json({{"verdict", "fail"}, {"class", "incorrect"}}));
  }
  EXPECT_EQ(mine["code"], s.code);
  EXPECT_EQ(mine["public"]["message"], judgment["message"]);
  EXPECT_FALSE(theirs.contains("code"));
  EXPECT_FALSE(theirs["public"].contains("message"));  // a compiler's message quotes the code
  EXPECT_EQ(theirs["public"]["checks"][0], json({{"name", "correctness"}, {"pass", true}}));
}

TEST(Board, BestStandingPerEntrantRankedByTimeTiesToTheEarlier) {
  competition c = two_tasks();
  std::vector<submission> all = {standing(1, "alice", "swish", 2.0, 1.0, 1100),
                                 standing(2, "bob", "swish", 1.5, 1.3, 1200),
                                 standing(3, "alice", "swish", 1.2, 1.6, 1300),
                                 standing(4, "carol", "swish", 1.2, 1.6, 1250),  // ties alice's best, sent earlier
                                 standing(5, "bob", "swish", 1.8, 1.1, 1400)};    // worse than bob's best
  submission hack;
  hack.id = 6;
  hack.participant = "dave";
  hack.task = "swish";
  hack.submitted_ms = 1500000;
  settle_submission(hack, got("rejected", {"replay"}), {});
  hack.time_ms = 0.001;  // never ranks
  all.push_back(hack);
  json board = build_board(c, all);
  ASSERT_EQ(board["tasks"].size(), 2u);
  const json& swish = board["tasks"][0];
  ASSERT_EQ(swish["boards"].size(), 1u);
  const json& entries = swish["boards"][0]["entries"];
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0]["participant"], "carol");
  EXPECT_EQ(entries[0]["id"], 4);
  EXPECT_EQ(entries[1]["participant"], "alice");
  EXPECT_EQ(entries[1]["id"], 3);
  EXPECT_EQ(entries[2]["participant"], "bob");
  EXPECT_EQ(entries[2]["id"], 2);
  EXPECT_EQ(entries[2]["rank"], 3);
  EXPECT_TRUE(board["tasks"][1]["boards"].empty());
  // The best over time: each new leader once (carol's tie with alice's later one is not a new best).
  const json& history = swish["boards"][0]["history"];
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0]["id"], 1);
  EXPECT_EQ(history[1]["id"], 2);
  EXPECT_EQ(history[2]["id"], 4);
  // The newest first; the hack listed as rejected.
  EXPECT_EQ(board["recent"][0]["id"], 6);
  EXPECT_EQ(board["recent"][0]["verdict"], "rejected");
  EXPECT_EQ(board["recent"][0]["class"], "replay");
  EXPECT_EQ(board["counts"]["rejected"], 1);
  EXPECT_EQ(board["counts"]["standing"], 5);
  // Where each stands.
  json st = standing_on(board, c, all[4]);
  EXPECT_EQ(st["rank"], 3);
  EXPECT_EQ(st["best_id"], 2);
  EXPECT_EQ(st["this_is_best"], false);
  EXPECT_TRUE(standing_on(board, c, hack).is_null());
}

TEST(Board, RankedBySpeedupWhenTheRuleSaysSo) {
  competition c = two_tasks("speedup");
  std::vector<submission> all = {standing(1, "alice", "softmax", 1.0, 3.0, 1100), standing(2, "bob", "softmax", 0.5, 2.0, 1200)};
  json entries = build_board(c, all)["tasks"][1]["boards"][0]["entries"];
  EXPECT_EQ(entries[0]["participant"], "alice");
}

TEST(Board, OneBoardPerGpuKindAndUnlistedDevicesDoNotRank) {
  competition c = two_tasks();
  c.gpus = {"H200", "H100"};
  std::vector<submission> all = {standing(1, "alice", "swish", 1.0, 1.0, 1100, "NVIDIA H200"),
                                 standing(2, "bob", "swish", 2.0, 1.0, 1200, "NVIDIA H100 80GB HBM3"),
                                 standing(3, "carol", "swish", 0.5, 1.0, 1300, "NVIDIA A100-SXM4-80GB")};
  json boards = build_board(c, all)["tasks"][0]["boards"];
  ASSERT_EQ(boards.size(), 2u);
  EXPECT_EQ(boards[0]["gpu"], "H100");
  EXPECT_EQ(boards[1]["gpu"], "H200");
  EXPECT_EQ(gpu_kind(c, "NVIDIA A100-SXM4-80GB"), "");
  EXPECT_EQ(gpu_kind(two_tasks(), "AMD EPYC"), "AMD EPYC");  // no list: the device's own name
}

}  // namespace
}  // namespace cudal1
