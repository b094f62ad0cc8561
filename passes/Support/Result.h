//===- Result.h - A value or the reason there is none -----------*- C++ -*-===//
//
// The error-as-value type of the foundation libraries and the planners: a
// function that can fail on its input returns Result<T>, either the value
// or a message that reads well after "error: " (the callers put it on the
// op or the spec field at fault). No exceptions, no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SUPPORT_RESULT_H
#define PLEXUS_PASSES_SUPPORT_RESULT_H

#include <optional>
#include <string>
#include <utility>

namespace plexus {

template <typename T> struct Result {
  std::optional<T> value;
  std::string error; ///< empty when there is a value

  static Result ok(T v) { return Result{std::move(v), {}}; }
  static Result fail(std::string msg) {
    return Result{std::nullopt, std::move(msg)};
  }
  explicit operator bool() const { return value.has_value(); }
  const T &operator*() const { return *value; }
  const T *operator->() const { return &*value; }
};

} // namespace plexus

#endif // PLEXUS_PASSES_SUPPORT_RESULT_H
