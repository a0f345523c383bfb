#include "store/sqlite.h"

#include <sqlite3.h>

#include <utility>

namespace cudal1 {

sqlite_stmt::sqlite_stmt(sqlite_stmt&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }

sqlite_stmt& sqlite_stmt::operator=(sqlite_stmt&& other) noexcept {
  if (this != &other) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

sqlite_stmt::~sqlite_stmt() {
  if (stmt_) sqlite3_finalize(stmt_);
}

sqlite_stmt& sqlite_stmt::bind(int i, const std::string& text) {
  sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  return *this;
}

sqlite_stmt& sqlite_stmt::bind(int i, int64_t value) {
  sqlite3_bind_int64(stmt_, i, value);
  return *this;
}

sqlite_stmt& sqlite_stmt::bind(int i, double value) {
  sqlite3_bind_double(stmt_, i, value);
  return *this;
}

sqlite_stmt& sqlite_stmt::bind(int i, std::optional<double> value) { return value ? bind(i, *value) : bind_null(i); }

sqlite_stmt& sqlite_stmt::bind_null(int i) {
  sqlite3_bind_null(stmt_, i);
  return *this;
}

result<bool> sqlite_stmt::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return make_error(std::string("SQLite: ") + sqlite3_errmsg(db_));
}

status sqlite_stmt::run() {
  for (;;) {
    auto more = step();
    if (!more) return more.err();
    if (!*more) return ok_status();
  }
}

std::string sqlite_stmt::text(int column) const {
  const unsigned char* p = sqlite3_column_text(stmt_, column);
  return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_, column)) : std::string();
}

int64_t sqlite_stmt::integer(int column) const { return sqlite3_column_int64(stmt_, column); }
double sqlite_stmt::real(int column) const { return sqlite3_column_double(stmt_, column); }
bool sqlite_stmt::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

sqlite_db& sqlite_db::operator=(sqlite_db&& other) noexcept {
  if (this != &other) {
    if (db_) sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
  }
  return *this;
}

sqlite_db::~sqlite_db() {
  if (db_) sqlite3_close_v2(db_);
}

result<sqlite_db> sqlite_db::open(const std::string& path, int busy_timeout_ms) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  sqlite_db db(raw);
  if (rc != SQLITE_OK) return make_error("cannot open the store " + path + ": " + (raw ? sqlite3_errmsg(raw) : "out of memory"));
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  // WAL: readers never block the writer, and several processes may write
  // (one at a time, each waiting up to the busy timeout).
  if (auto s = db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"); !s)
    return make_error("cannot use " + path + " as a store: " + s.message());
  return db;
}

status sqlite_db::exec(const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string why = msg ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    return make_error("SQLite: " + why);
  }
  return ok_status();
}

result<sqlite_stmt> sqlite_db::prepare(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK)
    return make_error(std::string("SQLite: ") + sqlite3_errmsg(db_) + " in: " + sql.substr(0, 80));
  return sqlite_stmt(db_, stmt);
}

int64_t sqlite_db::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
int sqlite_db::changes() const { return sqlite3_changes(db_); }

}  // namespace cudal1
