#include "store/store.h"

#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "base/fs.h"
#include "base/json_text.h"
#include "base/sha256.h"

#ifndef CUDAL1_VERSION
#define CUDAL1_VERSION "dev"
#endif

namespace cudal1 {

using json = nlohmann::json;

namespace {

// The (task_hash, name) rows a task query returns.
result<std::vector<std::pair<std::string, std::string>>> hash_name_rows(sqlite_stmt& q) {
  std::vector<std::pair<std::string, std::string>> out;
  for (;;) {
    auto row = q.step();
    if (!row) return row.err();
    if (!*row) break;
    out.emplace_back(q.text(0), q.text(1));
  }
  return out;
}

// Hack classes are stored comma-separated.
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = 0; at < text.size();) {
    size_t comma = std::min(text.find(',', at), text.size());
    if (comma > at) out.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

// Each entry takes the schema from version i to i + 1.
const char* const kMigrations[] = {
    R"(CREATE TABLE tasks (
         task_hash TEXT PRIMARY KEY,
         name TEXT NOT NULL,
         source TEXT NOT NULL,
         created_at TEXT NOT NULL);
       CREATE TABLE candidates (
         candidate_hash TEXT PRIMARY KEY,
         task_hash TEXT NOT NULL REFERENCES tasks(task_hash),
         format TEXT NOT NULL,
         source TEXT NOT NULL,
         origin TEXT NOT NULL DEFAULT '',
         created_at TEXT NOT NULL);
       CREATE INDEX candidates_by_task ON candidates(task_hash);
       CREATE TABLE runs (
         run_id INTEGER PRIMARY KEY,
         name TEXT NOT NULL UNIQUE,
         command TEXT NOT NULL DEFAULT '',
         settings TEXT NOT NULL DEFAULT '{}',
         status TEXT NOT NULL DEFAULT 'running',
         created_at TEXT NOT NULL);
       CREATE TABLE judgments (
         judgment_id INTEGER PRIMARY KEY,
         run_id INTEGER REFERENCES runs(run_id),
         task_hash TEXT NOT NULL REFERENCES tasks(task_hash),
         candidate_hash TEXT NOT NULL DEFAULT '',
         sample INTEGER NOT NULL DEFAULT 0,
         verdict TEXT NOT NULL,
         speedup REAL,
         reference_ms REAL,
         candidate_ms REAL,
         sol_fraction REAL,
         hack_classes TEXT NOT NULL DEFAULT '',
         device TEXT NOT NULL DEFAULT '',
         driver TEXT NOT NULL DEFAULT '',
         toolkit TEXT NOT NULL DEFAULT '',
         torch TEXT NOT NULL DEFAULT '',
         judge_version TEXT NOT NULL,
         precision TEXT NOT NULL DEFAULT '',
         baseline TEXT NOT NULL DEFAULT '',
         published_score REAL,
         published TEXT,
         judgment TEXT NOT NULL,
         created_at TEXT NOT NULL,
         UNIQUE (run_id, task_hash, candidate_hash, sample));
       CREATE INDEX judgments_by_task ON judgments(task_hash, verdict, speedup);
       CREATE INDEX judgments_by_candidate ON judgments(candidate_hash);)",
    // 2: the optimizer's requests and answers, one row per (run, task, round,
    // slot); a judged answer points at its judgment by candidate_hash.
    R"(CREATE TABLE attempts (
         attempt_id INTEGER PRIMARY KEY,
         run_id INTEGER NOT NULL REFERENCES runs(run_id),
         task_hash TEXT NOT NULL REFERENCES tasks(task_hash),
         round INTEGER NOT NULL,
         slot INTEGER NOT NULL,
         status TEXT NOT NULL,
         model TEXT NOT NULL DEFAULT '',
         prompt TEXT NOT NULL DEFAULT '{}',
         exemplars TEXT NOT NULL DEFAULT '[]',
         answer TEXT NOT NULL DEFAULT '',
         analysis TEXT NOT NULL DEFAULT '',
         problem TEXT NOT NULL DEFAULT '',
         candidate_hash TEXT NOT NULL DEFAULT '',
         verdict TEXT NOT NULL DEFAULT '',
         speedup REAL,
         reward REAL,
         group_reward REAL,
         prompt_tokens INTEGER NOT NULL DEFAULT 0,
         completion_tokens INTEGER NOT NULL DEFAULT 0,
         llm_seconds REAL,
         judge_seconds REAL,
         created_at TEXT NOT NULL,
         UNIQUE (run_id, task_hash, round, slot));
       CREATE INDEX attempts_by_task ON attempts(task_hash, round);)",
};

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<double> number_at(const json& j, const json::json_pointer& p) {
  if (!j.contains(p) || !j.at(p).is_number()) return std::nullopt;
  return j.at(p).get<double>();
}

std::string string_at(const json& j, const json::json_pointer& p) {
  if (!j.contains(p)) return "";
  const json& v = j.at(p);
  return v.is_string() ? v.get<std::string>() : v.is_null() ? "" : json_text(v);
}

}  // namespace

std::string store::default_path() {
  if (const char* p = std::getenv("CUDAL1_STORE"); p && *p) return p;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/cudal1/store.sqlite";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.local/share/cudal1/store.sqlite";
}

result<store> store::open(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty())
    if (auto s = make_dirs(parent.string()); !s) return make_error("cannot create the store's folder: " + s.message());
  auto db = sqlite_db::open(path);
  if (!db) return db.err();
  store st(std::move(*db), path);
  if (auto s = st.migrate(); !s) return make_error("store " + path + ": " + s.message());
  return st;
}

result<int> store::schema_version() {
  auto q = db_.prepare("PRAGMA user_version");
  if (!q) return q.err();
  auto row = q->step();
  if (!row) return row.err();
  return static_cast<int>(q->integer(0));
}

status store::migrate() {
  // One writer migrates; the others wait for its lock, then find it done.
  if (auto s = db_.exec("BEGIN IMMEDIATE"); !s) return s;
  auto fail = [&](const error& e) {
    (void)db_.exec("ROLLBACK");
    return status(e);
  };
  auto version = schema_version();
  if (!version) return fail(version.err());
  if (*version > kStoreSchemaVersion)
    return fail(make_error("written by a newer cudal1 (schema " + std::to_string(*version) + "; this one knows " +
                           std::to_string(kStoreSchemaVersion) + ")"));
  for (int v = *version; v < kStoreSchemaVersion; ++v) {
    if (auto s = db_.exec(kMigrations[v]); !s) return fail(s.err());
    if (auto s = db_.exec("PRAGMA user_version = " + std::to_string(v + 1)); !s) return fail(s.err());
  }
  return db_.exec("COMMIT");
}

result<std::string> store::put_task(const std::string& name, const std::string& source) {
  std::string hash = sha256_hex(source);
  auto q = db_.prepare("INSERT INTO tasks (task_hash, name, source, created_at) VALUES (?1, ?2, ?3, ?4) "
                       "ON CONFLICT (task_hash) DO NOTHING");
  if (!q) return q.err();
  q->bind(1, hash).bind(2, name).bind(3, source).bind(4, now_utc());
  if (auto s = q->run(); !s) return s.err();
  return hash;
}

result<std::string> store::put_candidate(const std::string& task_hash, const std::string& format, const std::string& source,
                                         const std::string& origin) {
  std::string hash = sha256_hex(format + "\n" + source);
  auto q = db_.prepare("INSERT INTO candidates (candidate_hash, task_hash, format, source, origin, created_at) "
                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (candidate_hash) DO NOTHING");
  if (!q) return q.err();
  q->bind(1, hash).bind(2, task_hash).bind(3, format).bind(4, source).bind(5, origin).bind(6, now_utc());
  if (auto s = q->run(); !s) return s.err();
  return hash;
}

result<std::string> store::candidate_source(const std::string& candidate_hash) {
  auto q = db_.prepare("SELECT source FROM candidates WHERE candidate_hash = ?1");
  if (!q) return q.err();
  q->bind(1, candidate_hash);
  auto row = q->step();
  if (!row) return row.err();
  if (!*row) return make_error("no candidate " + candidate_hash + " in the store");
  return q->text(0);
}

namespace {

run_record read_run(const sqlite_stmt& q) {
  run_record r;
  r.run_id = q.integer(0);
  r.name = q.text(1);
  r.command = q.text(2);
  r.settings = json::parse(q.text(3), nullptr, false);
  if (r.settings.is_discarded()) r.settings = json::object();
  r.status = q.text(4);
  r.created_at = q.text(5);
  return r;
}

constexpr const char* kRunColumns = "SELECT run_id, name, command, settings, status, created_at FROM runs ";

}  // namespace

result<run_record> store::open_run(const std::string& name, const std::string& command, const json& settings) {
  auto ins = db_.prepare("INSERT INTO runs (name, command, settings, created_at) VALUES (?1, ?2, ?3, ?4) "
                         "ON CONFLICT (name) DO NOTHING");
  if (!ins) return ins.err();
  ins->bind(1, name).bind(2, command).bind(3, json_text(settings)).bind(4, now_utc());
  if (auto s = ins->run(); !s) return s.err();
  return find_run(name);
}

status store::set_run_status(int64_t run_id, const std::string& status_text) {
  auto q = db_.prepare("UPDATE runs SET status = ?1 WHERE run_id = ?2");
  if (!q) return q.err();
  q->bind(1, status_text).bind(2, run_id);
  return q->run();
}

result<std::vector<run_record>> store::runs() {
  auto q = db_.prepare(std::string(kRunColumns) + "ORDER BY run_id");
  if (!q) return q.err();
  std::vector<run_record> out;
  for (;;) {
    auto row = q->step();
    if (!row) return row.err();
    if (!*row) break;
    out.push_back(read_run(*q));
  }
  return out;
}

result<run_record> store::find_run(const std::string& which) {
  std::string sql = std::string(kRunColumns) + (which.empty() ? "ORDER BY run_id DESC LIMIT 1"
                                                              : "WHERE name = ?1 OR CAST(run_id AS TEXT) = ?1 "
                                                                "ORDER BY name = ?1 DESC LIMIT 1");
  auto q = db_.prepare(sql);
  if (!q) return q.err();
  if (!which.empty()) q->bind(1, which);
  auto row = q->step();
  if (!row) return row.err();
  if (!*row) return make_error(which.empty() ? "the store " + path_ + " has no runs yet" : "no run '" + which + "' in " + path_);
  return read_run(*q);
}

result<bool> store::has_judgment(const judgment_key& key) {
  // A setup error ("error") is not a result: a resumed run tries it again.
  auto q = db_.prepare("SELECT 1 FROM judgments WHERE run_id = ?1 AND task_hash = ?2 AND candidate_hash = ?3 AND sample = ?4 "
                       "AND verdict != 'error'");
  if (!q) return q.err();
  q->bind(1, key.run_id).bind(2, key.task_hash).bind(3, key.candidate_hash).bind(4, key.sample);
  return q->step();
}

status store::record_judgment(const judgment_key& key, const json& j, const std::string& baseline,
                              std::optional<double> published_score, const json& published) {
  std::string hacks;
  if (j.contains("hacks") && j["hacks"].is_array())
    for (const auto& h : j["hacks"]) {
      if (!hacks.empty()) hacks += ',';
      hacks += h.value("class", std::string());
    }
  auto q = db_.prepare(
      "INSERT INTO judgments (run_id, task_hash, candidate_hash, sample, verdict, speedup, reference_ms, candidate_ms, "
      "sol_fraction, hack_classes, device, driver, toolkit, torch, judge_version, precision, baseline, published_score, "
      "published, judgment, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
      "?17, ?18, ?19, ?20, ?21) ON CONFLICT (run_id, task_hash, candidate_hash, sample) DO UPDATE SET "
      "verdict = excluded.verdict, speedup = excluded.speedup, reference_ms = excluded.reference_ms, "
      "candidate_ms = excluded.candidate_ms, sol_fraction = excluded.sol_fraction, hack_classes = excluded.hack_classes, "
      "device = excluded.device, driver = excluded.driver, toolkit = excluded.toolkit, torch = excluded.torch, "
      "judge_version = excluded.judge_version, precision = excluded.precision, baseline = excluded.baseline, "
      "published_score = excluded.published_score, published = excluded.published, judgment = excluded.judgment, "
      "created_at = excluded.created_at");
  if (!q) return q.err();
  using ptr = json::json_pointer;
  q->bind(1, key.run_id).bind(2, key.task_hash).bind(3, key.candidate_hash).bind(4, key.sample);
  q->bind(5, j.value("verdict", std::string("reference")));
  q->bind(6, number_at(j, ptr("/speedup")));
  q->bind(7, number_at(j, ptr("/reference/median_ms")));
  q->bind(8, number_at(j, ptr("/candidate/median_ms")));
  q->bind(9, number_at(j, ptr("/speed_of_light/fraction")));
  q->bind(10, hacks);
  q->bind(11, string_at(j, ptr("/device/name")));
  q->bind(12, string_at(j, ptr("/device/driver_version")));
  q->bind(13, string_at(j, ptr("/device/runtime_version")));
  q->bind(14, string_at(j, ptr("/torch")));
  q->bind(15, std::string(CUDAL1_VERSION));
  q->bind(16, string_at(j, ptr("/precision/policy")));
  q->bind(17, baseline);
  q->bind(18, published_score);
  if (published.is_null()) q->bind_null(19);
  else q->bind(19, json_text(published));
  q->bind(20, json_text(j));
  q->bind(21, now_utc());
  return q->run();
}

result<std::vector<judgment_record>> store::judgments(int64_t run_id) {
  auto q = db_.prepare(
      "SELECT j.judgment_id, j.run_id, j.task_hash, t.name, j.candidate_hash, j.sample, j.verdict, j.speedup, "
      "j.reference_ms, j.candidate_ms, j.sol_fraction, j.hack_classes, j.device, j.baseline, j.precision, "
      "j.published_score, j.published, j.judgment, j.created_at FROM judgments j JOIN tasks t USING (task_hash) "
      "WHERE j.run_id = ?1 ORDER BY t.name, j.candidate_hash, j.sample");
  if (!q) return q.err();
  q->bind(1, run_id);
  std::vector<judgment_record> out;
  auto opt = [&](int c) { return q->is_null(c) ? std::nullopt : std::optional<double>(q->real(c)); };
  for (;;) {
    auto row = q->step();
    if (!row) return row.err();
    if (!*row) break;
    judgment_record r;
    r.judgment_id = q->integer(0);
    r.run_id = q->integer(1);
    r.task_hash = q->text(2);
    r.task_name = q->text(3);
    r.candidate_hash = q->text(4);
    r.sample = static_cast<int>(q->integer(5));
    r.verdict = q->text(6);
    r.speedup = opt(7);
    r.reference_ms = opt(8);
    r.candidate_ms = opt(9);
    r.sol_fraction = opt(10);
    r.hack_classes = split_commas(q->text(11));
    r.device = q->text(12);
    r.baseline = q->text(13);
    r.precision = q->text(14);
    r.published_score = opt(15);
    if (!q->is_null(16)) r.published = json::parse(q->text(16), nullptr, false);
    r.judgment = json::parse(q->text(17), nullptr, false);
    r.created_at = q->text(18);
    out.push_back(std::move(r));
  }
  return out;
}


result<std::vector<std::pair<std::string, std::string>>> store::find_tasks(const std::string& name) {
  auto q = db_.prepare(
      "SELECT task_hash, name FROM tasks WHERE name = ?1 OR substr(name, -length(?1) - 1) = '/' || ?1 OR "
      "substr(name, 1, length(?1) + 1) = ?1 || '/' OR (length(?1) >= 6 AND substr(task_hash, 1, length(?1)) = ?1) "
      "ORDER BY created_at DESC, rowid DESC");
  if (!q) return q.err();
  q->bind(1, name);
  return hash_name_rows(*q);
}

result<std::vector<std::pair<std::string, std::string>>> store::all_tasks() {
  auto q = db_.prepare("SELECT task_hash, name FROM tasks ORDER BY name, created_at");
  if (!q) return q.err();
  return hash_name_rows(*q);
}

result<std::string> store::task_source(const std::string& task_hash) {
  auto q = db_.prepare("SELECT source FROM tasks WHERE task_hash = ?1");
  if (!q) return q.err();
  q->bind(1, task_hash);
  auto row = q->step();
  if (!row) return row.err();
  if (!*row) return make_error("no task " + task_hash + " in the store");
  return q->text(0);
}

result<std::vector<task_kernel>> store::task_kernels(const std::string& task_hash) {
  auto q = db_.prepare(
      "SELECT c.candidate_hash, c.format, c.source, j.verdict, j.device, j.baseline, j.speedup, j.judgment_id, j.run_id, "
      "j.judgment, j.judge_version, j.precision, j.hack_classes FROM judgments j JOIN candidates c USING (candidate_hash) "
      "WHERE j.task_hash = ?1 "
      "ORDER BY j.verdict = 'correct' DESC, j.speedup DESC NULLS LAST, j.judgment_id");
  if (!q) return q.err();
  q->bind(1, task_hash);
  std::vector<task_kernel> out;
  for (;;) {
    auto row = q->step();
    if (!row) return row.err();
    if (!*row) break;
    task_kernel k;
    k.candidate_hash = q->text(0);
    k.format = q->text(1);
    k.source = q->text(2);
    k.verdict = q->text(3);
    k.device = q->text(4);
    k.baseline = q->text(5);
    if (!q->is_null(6)) k.speedup = q->real(6);
    k.judgment_id = q->integer(7);
    k.run_id = q->integer(8);
    k.judgment = json::parse(q->text(9), nullptr, false);
    k.judge_version = q->text(10);
    k.precision = q->text(11);
    k.hack_classes = split_commas(q->text(12));
    out.push_back(std::move(k));
  }
  return out;
}

status store::put_attempt(const attempt_record& a) {
  auto q = db_.prepare(
      "INSERT INTO attempts (run_id, task_hash, round, slot, status, model, prompt, exemplars, answer, analysis, problem, "
      "candidate_hash, verdict, speedup, reward, group_reward, prompt_tokens, completion_tokens, llm_seconds, "
      "judge_seconds, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
      "?18, ?19, ?20, ?21) ON CONFLICT (run_id, task_hash, round, slot) DO UPDATE SET status = excluded.status, "
      "model = excluded.model, prompt = excluded.prompt, exemplars = excluded.exemplars, answer = excluded.answer, "
      "analysis = excluded.analysis, problem = excluded.problem, candidate_hash = excluded.candidate_hash, "
      "verdict = excluded.verdict, speedup = excluded.speedup, reward = excluded.reward, "
      "group_reward = excluded.group_reward, prompt_tokens = excluded.prompt_tokens, "
      "completion_tokens = excluded.completion_tokens, llm_seconds = excluded.llm_seconds, "
      "judge_seconds = excluded.judge_seconds");
  if (!q) return q.err();
  q->bind(1, a.run_id).bind(2, a.task_hash).bind(3, a.round).bind(4, a.slot).bind(5, a.status).bind(6, a.model);
  q->bind(7, json_text(a.prompt)).bind(8, json_text(a.exemplars)).bind(9, a.answer).bind(10, a.analysis).bind(11, a.problem);
  q->bind(12, a.candidate_hash).bind(13, a.verdict).bind(14, a.speedup).bind(15, a.reward).bind(16, a.group_reward);
  q->bind(17, a.prompt_tokens).bind(18, a.completion_tokens).bind(19, a.llm_seconds).bind(20, a.judge_seconds);
  q->bind(21, a.created_at.empty() ? now_utc() : a.created_at);
  return q->run();
}

namespace {

result<std::vector<attempt_record>> read_attempts(sqlite_stmt& q) {
  std::vector<attempt_record> out;
  auto opt = [&](int c) { return q.is_null(c) ? std::nullopt : std::optional<double>(q.real(c)); };
  for (;;) {
    auto row = q.step();
    if (!row) return row.err();
    if (!*row) break;
    attempt_record a;
    a.attempt_id = q.integer(0);
    a.run_id = q.integer(1);
    a.task_hash = q.text(2);
    a.task_name = q.text(3);
    a.round = static_cast<int>(q.integer(4));
    a.slot = static_cast<int>(q.integer(5));
    a.status = q.text(6);
    a.model = q.text(7);
    a.prompt = json::parse(q.text(8), nullptr, false);
    a.exemplars = json::parse(q.text(9), nullptr, false);
    a.answer = q.text(10);
    a.analysis = q.text(11);
    a.problem = q.text(12);
    a.candidate_hash = q.text(13);
    a.verdict = q.text(14);
    a.speedup = opt(15);
    a.reward = opt(16);
    a.group_reward = opt(17);
    a.prompt_tokens = q.integer(18);
    a.completion_tokens = q.integer(19);
    a.llm_seconds = opt(20);
    a.judge_seconds = opt(21);
    a.created_at = q.text(22);
    out.push_back(std::move(a));
  }
  return out;
}

constexpr const char* kAttemptColumns =
    "SELECT a.attempt_id, a.run_id, a.task_hash, t.name, a.round, a.slot, a.status, a.model, a.prompt, a.exemplars, "
    "a.answer, a.analysis, a.problem, a.candidate_hash, a.verdict, a.speedup, a.reward, a.group_reward, "
    "a.prompt_tokens, a.completion_tokens, a.llm_seconds, a.judge_seconds, a.created_at FROM attempts a "
    "JOIN tasks t USING (task_hash) ";

}  // namespace

result<std::vector<attempt_record>> store::attempts(int64_t run_id, const std::string& task_hash) {
  auto q = db_.prepare(std::string(kAttemptColumns) +
                       "WHERE a.run_id = ?1 AND (?2 = '' OR a.task_hash = ?2) ORDER BY t.name, a.round, a.slot");
  if (!q) return q.err();
  q->bind(1, run_id).bind(2, task_hash);
  return read_attempts(*q);
}

result<std::vector<attempt_record>> store::task_attempts(const std::string& task_hash) {
  auto q = db_.prepare(std::string(kAttemptColumns) + "WHERE a.task_hash = ?1 ORDER BY a.run_id, a.round, a.slot");
  if (!q) return q.err();
  q->bind(1, task_hash);
  return read_attempts(*q);
}

}  // namespace cudal1
