// result<T>: the outcome of an operation of cudal1 itself that can fail.
//
// A candidate's verdict is data, not an error; result<T> is for failures of
// the judge (a task that does not import, a missing compiler, a broken
// worker protocol). Exceptions are caught only in main functions.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace cudal1 {

/// A failure of cudal1 itself: a one-line message for the user.
struct error {
  std::string message;
};

/// Value-or-error, in the style of std::expected (C++23).
template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : state_(std::move(value)) {}
  result(error err) : state_(std::move(err)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(state_); }
  const T& value() const { return std::get<0>(state_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const error& err() const { return std::get<1>(state_); }
  const std::string& message() const { return err().message; }

 private:
  std::variant<T, error> state_;
};

/// result<void>: success carries nothing.
struct ok_t {};
using status = result<ok_t>;
inline status ok_status() { return ok_t{}; }

inline error make_error(std::string message) { return error{std::move(message)}; }

}  // namespace cudal1
