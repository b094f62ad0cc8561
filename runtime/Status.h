//===- Status.h - Errors as values for the Plexus runtime -------*- C++ -*-===//
//
// The runtime (libplxrt) never throws and never aborts on bad input: every
// call that can fail returns a Status, or a Result<T> holding a value or an
// error. Both are [[nodiscard]], so the compiler flags an ignored error.
// Messages say what failed and where (the op, the rank, the shapes), so that
// a generated per-rank program can print them as they are.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_STATUS_H
#define PLEXUS_RUNTIME_STATUS_H

#include <optional>
#include <string>
#include <utility>

namespace plexus::runtime {

/// Success, or an error with its message.
class [[nodiscard]] Status {
public:
  Status() = default;
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.failed = true;
    s.text = std::move(message);
    return s;
  }

  bool ok() const { return !failed; }
  explicit operator bool() const { return ok(); }
  const std::string &message() const { return text; }

  /// The same error with `context` in front ("context: message"); success
  /// stays success.
  Status withContext(const std::string &context) const {
    if (ok())
      return *this;
    return error(context + ": " + text);
  }

private:
  bool failed = false;
  std::string text;
};

/// A value, or the error that prevented it.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : stored(std::move(value)) {}
  // A Result made from a Status is always an error. (Initialised, not
  // assigned: nvcc's front end warns on a discarded Status& of operator=.)
  Result(Status status)
      : status_(status.ok() ? Status::error("internal: Result built from a "
                                            "success status")
                            : std::move(status)) {}

  bool ok() const { return stored.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status &status() const { return status_; }
  const std::string &message() const { return status_.message(); }

  T &value() { return *stored; }
  const T &value() const { return *stored; }
  T &operator*() { return *stored; }
  const T &operator*() const { return *stored; }
  T *operator->() { return &*stored; }
  const T *operator->() const { return &*stored; }
  T take() { return std::move(*stored); }

private:
  std::optional<T> stored;
  Status status_;
};

} // namespace plexus::runtime

/// Returns the enclosing function's Status (or Result) when `expr` fails.
#define PLXRT_TRY(expr)                                                        \
  do {                                                                         \
    ::plexus::runtime::Status plxrtStatus_ = (expr);                           \
    if (!plxrtStatus_.ok())                                                    \
      return plxrtStatus_;                                                     \
  } while (false)

#endif // PLEXUS_RUNTIME_STATUS_H
