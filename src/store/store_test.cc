#include "store/store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "base/fs.h"

namespace cudal1 {
namespace {

using json = nlohmann::json;

std::string fresh_path(const std::string& name) {
  auto dir = make_temp_dir("cudal1-store-test");
  EXPECT_TRUE(dir);
  return *dir + "/" + name;
}

json a_judgment(double speedup) {
  return {{"verdict", "correct"}, {"speedup", speedup}, {"reference", {{"median_ms", 2.0}}},
          {"candidate", {{"median_ms", 2.0 / speedup}}}, {"speed_of_light", {{"fraction", 0.5}}},
          {"hacks", json::array()}, {"device", {{"name", "NVIDIA H200"}, {"driver_version", 13000}}},
          {"torch", "2.11.0"}, {"precision", {{"policy", "fp32"}}}};
}

TEST(Store, CreatesTheSchemaAndKeepsRecordsByContent) {
  auto st = store::open(fresh_path("sub/dir/store.sqlite"));  // folders are created
  ASSERT_TRUE(st) << st.message();
  EXPECT_EQ(*st->schema_version(), kStoreSchemaVersion);
  auto t1 = st->put_task("level1/relu", "class Model: ...");
  auto t2 = st->put_task("renamed", "class Model: ...");  // the same source: the same task
  ASSERT_TRUE(t1 && t2);
  EXPECT_EQ(*t1, *t2);
  auto c1 = st->put_candidate(*t1, "cuda", "__global__ void k() {}", "a.cu");
  auto c2 = st->put_candidate(*t1, "cpp", "__global__ void k() {}", "a.cpp");  // another format: another candidate
  ASSERT_TRUE(c1 && c2);
  EXPECT_NE(*c1, *c2);
  EXPECT_EQ(*st->candidate_source(*c1), "__global__ void k() {}");
  EXPECT_FALSE(st->candidate_source("nope"));
}

TEST(Store, ARunIsResumedByNameAndAJudgmentReplacedByKey) {
  auto st = store::open(fresh_path("store.sqlite"));
  ASSERT_TRUE(st);
  auto run = st->open_run("suite-a", "cudal1 bench suites/level1", {{"baseline", "eager"}});
  ASSERT_TRUE(run);
  auto again = st->open_run("suite-a", "something else", json::object());
  ASSERT_TRUE(again);
  EXPECT_EQ(run->run_id, again->run_id);
  EXPECT_EQ(again->command, "cudal1 bench suites/level1");
  EXPECT_EQ(again->settings["baseline"], "eager");

  auto task = st->put_task("t", "src");
  auto cand = st->put_candidate(*task, "cuda", "k", "k.cu");
  judgment_key key{run->run_id, *task, *cand, 0};
  EXPECT_FALSE(*st->has_judgment(key));
  ASSERT_TRUE(st->record_judgment(key, a_judgment(2.0), "eager", 1.5, json{{"score_h100", 1.5}}));
  EXPECT_TRUE(*st->has_judgment(key));
  ASSERT_TRUE(st->record_judgment(key, a_judgment(3.0), "eager"));
  auto rows = st->judgments(run->run_id);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  const judgment_record& r = rows->front();
  EXPECT_EQ(r.task_name, "t");
  EXPECT_EQ(r.verdict, "correct");
  EXPECT_DOUBLE_EQ(*r.speedup, 3.0);
  EXPECT_DOUBLE_EQ(*r.reference_ms, 2.0);
  EXPECT_DOUBLE_EQ(*r.sol_fraction, 0.5);
  EXPECT_EQ(r.device, "NVIDIA H200");
  EXPECT_EQ(r.precision, "fp32");
  EXPECT_FALSE(r.published_score);  // the second record replaced the first
  EXPECT_EQ(r.judgment["speedup"], 3.0);

  auto latest = st->find_run("");
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->name, "suite-a");
  EXPECT_TRUE(st->find_run(std::to_string(run->run_id)));
  EXPECT_FALSE(st->find_run("no-such-run"));
}

TEST(Store, AVersionOneStoreIsMigratedAndKeepsItsJudgments) {
  std::string path = fresh_path("old.sqlite");
  {
    // A store as schema 1 left it: the first migration only.
    auto st = store::open(path);
    ASSERT_TRUE(st);
    auto task = st->put_task("level1/relu", "src");
    auto run = st->open_run("old", "", json::object());
    auto cand = st->put_candidate(*task, "cuda", "k", "k.cu");
    ASSERT_TRUE(st->record_judgment({run->run_id, *task, *cand, 0}, a_judgment(1.5), "eager"));
    auto db = sqlite_db::open(path);
    ASSERT_TRUE(db->exec("DROP TABLE attempts; PRAGMA user_version = 1"));
  }
  auto st = store::open(path);
  ASSERT_TRUE(st) << st.message();
  EXPECT_EQ(*st->schema_version(), kStoreSchemaVersion);
  auto runs = st->runs();
  ASSERT_TRUE(runs);
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(st->judgments(runs->front().run_id)->size(), 1u);
  auto attempts = st->attempts(runs->front().run_id);
  ASSERT_TRUE(attempts) << attempts.message();  // the new table exists
  EXPECT_TRUE(attempts->empty());
}

TEST(Store, AttemptsAreReplacedBySlotAndKernelsComeBestFirst) {
  auto st = store::open(fresh_path("store.sqlite"));
  ASSERT_TRUE(st);
  auto task = st->put_task("level1/softmax", "class Model: ...");
  auto other = st->put_task("level2/softmax", "class Model: pass");
  auto run = st->open_run("opt", "cudal1 optimize", {{"kind", "optimize"}});
  ASSERT_TRUE(task && other && run);
  auto slow = st->put_candidate(*task, "cuda", "slow", "optimize:m");
  auto fast = st->put_candidate(*task, "cuda", "fast", "optimize:m");
  auto wrong = st->put_candidate(*task, "cuda", "wrong", "optimize:m");
  ASSERT_TRUE(st->record_judgment({run->run_id, *task, *slow, 1000}, a_judgment(1.2), "eager"));
  ASSERT_TRUE(st->record_judgment({run->run_id, *task, *fast, 1001}, a_judgment(3.5), "eager"));
  json incorrect = a_judgment(1.0);
  incorrect["verdict"] = "incorrect";
  incorrect["speedup"] = nullptr;
  ASSERT_TRUE(st->record_judgment({run->run_id, *task, *wrong, 1002}, incorrect, "eager"));
  auto kernels = st->task_kernels(*task);
  ASSERT_TRUE(kernels) << kernels.message();
  ASSERT_EQ(kernels->size(), 3u);
  EXPECT_EQ((*kernels)[0].source, "fast");
  EXPECT_EQ((*kernels)[1].source, "slow");
  EXPECT_EQ((*kernels)[2].verdict, "incorrect");

  attempt_record a;
  a.run_id = run->run_id;
  a.task_hash = *task;
  a.round = 1;
  a.slot = 0;
  a.status = "answered";
  a.candidate_hash = *fast;
  a.prompt_tokens = 100;
  ASSERT_TRUE(st->put_attempt(a));
  a.status = "judged";
  a.verdict = "correct";
  a.speedup = 3.5;
  a.reward = 3.5;
  ASSERT_TRUE(st->put_attempt(a));  // the same slot: replaced
  a.slot = 1;
  a.status = "no_code";
  a.verdict = "";
  a.speedup.reset();
  ASSERT_TRUE(st->put_attempt(a));
  auto all = st->attempts(run->run_id, *task);
  ASSERT_TRUE(all) << all.message();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].status, "judged");
  EXPECT_EQ((*all)[0].speedup.value_or(0), 3.5);
  EXPECT_EQ((*all)[0].prompt_tokens, 100);
  EXPECT_EQ((*all)[0].task_name, "level1/softmax");
  EXPECT_EQ((*all)[1].status, "no_code");
  EXPECT_EQ(st->task_attempts(*task)->size(), 2u);
  EXPECT_TRUE(st->attempts(run->run_id, *other)->empty());

  // Names: exact, the stem after a suite, a suite, a hash prefix.
  EXPECT_EQ(st->find_tasks("level1/softmax")->size(), 1u);
  EXPECT_EQ(st->find_tasks("softmax")->size(), 2u);
  EXPECT_EQ(st->find_tasks("level2")->size(), 1u);
  EXPECT_EQ(st->find_tasks(task->substr(0, 8))->front().first, *task);
  EXPECT_TRUE(st->find_tasks("nope")->empty());
  EXPECT_EQ(*st->task_source(*other), "class Model: pass");
}

TEST(Store, RefusesAStoreOfANewerSchemaAndAFileThatIsNotOne) {
  std::string path = fresh_path("store.sqlite");
  {
    auto db = sqlite_db::open(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->exec("PRAGMA user_version = 99"));
  }
  auto st = store::open(path);
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("newer cudal1"), std::string::npos) << st.message();

  std::string junk = fresh_path("junk.sqlite");
  ASSERT_TRUE(write_file_atomic(junk, std::string(4096, 'x')));
  EXPECT_FALSE(store::open(junk));
}

TEST(Store, SeveralProcessesWriteAtOnceAndNothingIsLost) {
  std::string path = fresh_path("store.sqlite");
  ASSERT_TRUE(store::open(path));
  constexpr int kWriters = 4, kEach = 50;
  for (int w = 0; w < kWriters; ++w) {
    if (fork() == 0) {
      auto st = store::open(path);
      if (!st) _exit(1);
      auto run = st->open_run("shared", "", json::object());
      if (!run) _exit(2);
      for (int i = 0; i < kEach; ++i) {
        auto task = st->put_task("task" + std::to_string(i), "source " + std::to_string(i));
        auto cand = st->put_candidate(*task, "cuda", "cand " + std::to_string(w) + " " + std::to_string(i), "");
        if (!task || !cand || !st->record_judgment({run->run_id, *task, *cand, 0}, a_judgment(1.0 + i), "eager")) _exit(3);
      }
      _exit(0);
    }
  }
  for (int w = 0; w < kWriters; ++w) {
    int status = 0;
    wait(&status);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed with " << WEXITSTATUS(status);
  }
  auto st = store::open(path);
  auto run = st->find_run("shared");
  ASSERT_TRUE(run);
  EXPECT_EQ(st->judgments(run->run_id)->size(), static_cast<size_t>(kWriters * kEach));
}

}  // namespace
}  // namespace cudal1
