// The one error type users see: every mistake names the kernel, the op and the line of the
// user's source where it was made, and says what was expected and what was found.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>
#include <utility>

namespace wave {

class Error : public std::runtime_error {
 public:
  Error(std::string kernel, std::string op, std::string file, unsigned line, std::string message)
      : std::runtime_error(format(kernel, op, file, line, message)),
        kernel_(std::move(kernel)),
        op_(std::move(op)),
        file_(std::move(file)),
        line_(line),
        message_(std::move(message)) {}

  Error(std::string kernel, std::string op, const std::source_location& where, std::string message)
      : Error(std::move(kernel), std::move(op), where.file_name(), where.line(),
              std::move(message)) {}

  const std::string& kernel() const { return kernel_; }
  const std::string& op() const { return op_; }
  const std::string& file() const { return file_; }
  unsigned line() const { return line_; }
  const std::string& message() const { return message_; }

 private:
  static std::string format(const std::string& kernel, const std::string& op,
                            const std::string& file, unsigned line, const std::string& message) {
    std::string where = file.empty() ? std::string("<unknown>") : file;
    if (line) where += ":" + std::to_string(line);
    std::string subject = kernel.empty() ? std::string() : "kernel '" + kernel + "'";
    if (!op.empty()) subject += (subject.empty() ? "op '" : ", op '") + op + "'";
    return where + ": error: " + (subject.empty() ? "" : subject + ": ") + message;
  }

  std::string kernel_, op_, file_;
  unsigned line_;
  std::string message_;
};

// "expected X, but found Y": the shape of every diagnostic's message.
inline std::string expected_found(const std::string& expected, const std::string& found) {
  return "expected " + expected + ", but found " + found;
}

}  // namespace wave
