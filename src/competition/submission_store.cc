#include "competition/submission_store.h"

#include <filesystem>

#include "base/fs.h"
#include "base/json_text.h"

namespace cudal1 {

using nlohmann::json;

namespace {

constexpr const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS submissions (
  id INTEGER PRIMARY KEY,
  competition TEXT NOT NULL,
  participant TEXT NOT NULL,
  task TEXT NOT NULL,
  format TEXT NOT NULL,
  code TEXT NOT NULL,
  submitted_ms INTEGER NOT NULL,
  judged_ms INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL,
  verdict TEXT NOT NULL DEFAULT '',
  verdict_class TEXT NOT NULL DEFAULT '',
  part TEXT NOT NULL DEFAULT '',
  standing INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT '',
  hidden_verdict TEXT NOT NULL DEFAULT 'not_run',
  device TEXT NOT NULL DEFAULT '',
  time_ms REAL, reference_ms REAL, speedup REAL, sol_fraction REAL,
  public_judgment TEXT NOT NULL DEFAULT 'null',
  hidden_judgments TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS submissions_by_competition ON submissions (competition, id);
)";

json parsed_or_null(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::exception&) {
    return nullptr;
  }
}

}  // namespace

result<submission_store> submission_store::open(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (!dir.empty())
    if (auto made = make_dirs(dir); !made) return made.err();
  auto db = sqlite_db::open(path);
  if (!db) return db.err();
  if (auto s = db->exec(kSchema); !s) return make_error("competition store " + path + ": " + s.message());
  return submission_store(std::move(*db));
}

result<int64_t> submission_store::insert(const std::string& competition, const submission& s) {
  auto q = db_.prepare(
      "INSERT INTO submissions (competition, participant, task, format, code, submitted_ms, state) "
      "VALUES (?, ?, ?, ?, ?, ?, ?)");
  if (!q) return q.err();
  q->bind(1, competition).bind(2, s.participant).bind(3, s.task).bind(4, s.format).bind(5, s.code);
  q->bind(6, s.submitted_ms).bind(7, s.state);
  if (auto r = q->run(); !r) return r.err();
  return db_.last_insert_rowid();
}

status submission_store::update(const submission& s) {
  auto q = db_.prepare(
      "UPDATE submissions SET judged_ms = ?, state = ?, verdict = ?, verdict_class = ?, part = ?, standing = ?, "
      "error = ?, hidden_verdict = ?, device = ?, time_ms = ?, reference_ms = ?, speedup = ?, sol_fraction = ?, "
      "public_judgment = ?, hidden_judgments = ? WHERE id = ?");
  if (!q) return q.err();
  q->bind(1, s.judged_ms).bind(2, s.state).bind(3, s.verdict).bind(4, s.verdict_class).bind(5, s.part);
  q->bind(6, static_cast<int64_t>(s.standing)).bind(7, s.error).bind(8, s.hidden_verdict).bind(9, s.device);
  q->bind(10, s.time_ms).bind(11, s.reference_ms).bind(12, s.speedup).bind(13, s.sol_fraction);
  q->bind(14, json_text(s.public_judgment)).bind(15, json_text(s.hidden_judgments)).bind(16, s.id);
  return q->run();
}

result<std::vector<submission>> submission_store::load(const std::string& competition) {
  auto q = db_.prepare(
      "SELECT id, participant, task, format, code, submitted_ms, judged_ms, state, verdict, verdict_class, part, "
      "standing, error, hidden_verdict, device, time_ms, reference_ms, speedup, sol_fraction, public_judgment, "
      "hidden_judgments FROM submissions WHERE competition = ? ORDER BY id");
  if (!q) return q.err();
  q->bind(1, competition);
  std::vector<submission> out;
  auto opt = [&](int c) { return q->is_null(c) ? std::nullopt : std::optional<double>(q->real(c)); };
  for (;;) {
    auto row = q->step();
    if (!row) return row.err();
    if (!*row) break;
    submission s;
    s.id = q->integer(0);
    s.participant = q->text(1);
    s.task = q->text(2);
    s.format = q->text(3);
    s.code = q->text(4);
    s.submitted_ms = q->integer(5);
    s.judged_ms = q->integer(6);
    s.state = q->text(7);
    s.verdict = q->text(8);
    s.verdict_class = q->text(9);
    s.part = q->text(10);
    s.standing = q->integer(11) != 0;
    s.error = q->text(12);
    s.hidden_verdict = q->text(13);
    s.device = q->text(14);
    s.time_ms = opt(15);
    s.reference_ms = opt(16);
    s.speedup = opt(17);
    s.sol_fraction = opt(18);
    s.public_judgment = parsed_or_null(q->text(19));
    s.hidden_judgments = parsed_or_null(q->text(20));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace cudal1
