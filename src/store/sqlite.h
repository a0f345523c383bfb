// A thin RAII layer over SQLite's C API: a connection and prepared
// statements, errors as result<T> with SQLite's message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace cudal1 {

/// One prepared statement. Move-only: it owns the SQLite handle.
class sqlite_stmt {
 public:
  sqlite_stmt() = default;
  sqlite_stmt(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  sqlite_stmt(sqlite_stmt&& other) noexcept;
  sqlite_stmt& operator=(sqlite_stmt&& other) noexcept;
  sqlite_stmt(const sqlite_stmt&) = delete;
  sqlite_stmt& operator=(const sqlite_stmt&) = delete;
  ~sqlite_stmt();

  /// Binds parameter i (1-based); an empty optional binds NULL.
  sqlite_stmt& bind(int i, const std::string& text);
  sqlite_stmt& bind(int i, const char* text) { return bind(i, std::string(text)); }
  sqlite_stmt& bind(int i, int64_t value);
  sqlite_stmt& bind(int i, int value) { return bind(i, static_cast<int64_t>(value)); }
  sqlite_stmt& bind(int i, double value);
  sqlite_stmt& bind(int i, std::optional<double> value);
  sqlite_stmt& bind_null(int i);

  /// Steps once: true with a row to read, false when done; errors carry
  /// SQLite's message.
  result<bool> step();
  /// Steps to the end (for statements that return no rows).
  status run();

  std::string text(int column) const;
  int64_t integer(int column) const;
  double real(int column) const;
  bool is_null(int column) const;

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

/// A connection. WAL journal, a busy timeout (several cudal1 processes may
/// write to one store), foreign keys on.
class sqlite_db {
 public:
  sqlite_db() = default;
  sqlite_db(sqlite_db&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  sqlite_db& operator=(sqlite_db&& other) noexcept;
  sqlite_db(const sqlite_db&) = delete;
  sqlite_db& operator=(const sqlite_db&) = delete;
  ~sqlite_db();

  /// Opens (creating) the database file. Errors: the folder is missing or
  /// unwritable, the file is not a SQLite database.
  static result<sqlite_db> open(const std::string& path, int busy_timeout_ms = 30000);

  /// Runs one or more statements without parameters.
  status exec(const std::string& sql);
  result<sqlite_stmt> prepare(const std::string& sql);
  int64_t last_insert_rowid() const;
  /// Rows changed by the last INSERT, UPDATE or DELETE.
  int changes() const;

 private:
  explicit sqlite_db(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
};

}  // namespace cudal1
