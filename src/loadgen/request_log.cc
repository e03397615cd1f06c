#include "loadgen/request_log.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "loadgen/route.h"
#include "loadgen/worker_stats.h"

namespace stampede::loadgen {
namespace {

constexpr std::string_view kCsvHeader =
    "index,worker,connection,intended_us,start_us,connected_us,sent_us,first_byte_us,end_us,"
    "status,error,bytes\n";

bool has_log_suffix(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Writes all of `text`; 0 or the errno of the failure.
int write_whole(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

void append_number(std::string& out, std::int64_t v) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, v);
  out.append(digits, r.ptr);
}

// A JSON string's characters (RFC 8259: quote, backslash and controls escaped). Error names are
// tokens; only a hook's code can hold anything else.
void append_json_text(std::string& out, std::string_view text) {
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
}

// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
void append_csv_text(std::string& out, std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += text;
    return;
  }
  out += '"';
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

}  // namespace

Expected<LogFormat> log_format_of(std::string_view path) {
  if (path == "-") return LogFormat::Ndjson;
  if (has_log_suffix(path, ".csv")) return LogFormat::Csv;
  if (has_log_suffix(path, ".ndjson") || has_log_suffix(path, ".jsonl")) return LogFormat::Ndjson;
  return make_error(fmt::format(
      "--log '{}': the name must end in .csv, .ndjson or .jsonl (the format), or be - for "
      "NDJSON on stdout",
      path));
}

Expected<std::shared_ptr<LogFile>> LogFile::open(const std::string& path) {
  auto format = log_format_of(path);
  if (!format) return format.error();
  if (path == "-") {
    return std::shared_ptr<LogFile>(new LogFile(STDOUT_FILENO, false, *format, path));
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return make_error(fmt::format("--log '{}': cannot create it: {}", path, std::strerror(errno)));
  }
  auto file = std::shared_ptr<LogFile>(new LogFile(fd, true, *format, path));
  if (*format == LogFormat::Csv) {
    if (const int err = write_whole(fd, kCsvHeader); err != 0) {
      return make_error(fmt::format("--log '{}': cannot write it: {}", path, std::strerror(err)));
    }
  }
  return file;
}

LogFile::LogFile(int fd, bool owned, LogFormat format, std::string path)
    : fd_(fd), owned_(owned), format_(format), path_(std::move(path)) {}

LogFile::~LogFile() {
  if (owned_) ::close(fd_);
}

void LogFile::write(std::string_view text, std::uint64_t lines) {
  std::lock_guard lock(mutex_);
  if (error_ == 0) error_ = write_whole(fd_, text);
  if (error_ != 0) lost_ += lines;
}

std::string LogFile::error_line() const {
  std::lock_guard lock(mutex_);
  if (error_ == 0) return {};
  return fmt::format("--log '{}': writing failed: {}; {} request lines were not written", path_,
                     std::strerror(error_), lost_);
}

WorkerLog::WorkerLog(LogFile& file, std::uint32_t worker) : file_(file), worker_(worker) {
  buffer_.reserve(kFlushBytes + 1024);
}

WorkerLog::~WorkerLog() {
  flush();
}

void WorkerLog::flush() {
  if (lines_ == 0) return;
  file_.write(buffer_, lines_);
  buffer_.clear();
  lines_ = 0;
}

// The name the report counts the request under (runner.cc, fill_result); empty: no error.
std::string_view WorkerLog::error_name(const LogLine& line) {
  if (!line.code.empty()) return line.code;
  if (line.err != 0) {
    const int index =
        line.err > 0 && line.err < WorkerStats::kMaxErrno ? line.err : WorkerStats::kMaxErrno - 1;
    std::string& name = errnos_[static_cast<std::size_t>(index)];
    if (name.empty()) name = failure_name(index);
    return name;
  }
  if (!WorkerStats::is_error_status(line.status)) return {};
  status_name_.clear();
  append_number(status_name_, line.status);
  return status_name_;
}

void WorkerLog::append(const LogLine& line) {
  const std::string_view error = error_name(line);
  if (file_.format() == LogFormat::Csv) {
    append_csv(line, error);
  } else {
    append_ndjson(line, error);
  }
  ++lines_;
  if (buffer_.size() >= kFlushBytes) flush();
}

void WorkerLog::append_csv(const LogLine& line, std::string_view error) {
  std::string& out = buffer_;
  // A time that does not apply is an empty field.
  const auto time = [&](std::int64_t ns) {
    if (ns != 0) append_number(out, (ns - origin_ns_) / 1000);
    out += ',';
  };
  append_number(out, static_cast<std::int64_t>(line.index));
  out += ',';
  append_number(out, worker_);
  out += ',';
  append_number(out, static_cast<std::int64_t>(line.connection));
  out += ',';
  time(line.intended_ns);
  time(line.start_ns);
  time(line.connected_ns);
  time(line.sent_ns);
  time(line.first_byte_ns);
  time(line.end_ns);
  if (line.status != 0) append_number(out, line.status);
  out += ',';
  append_csv_text(out, error);
  out += ',';
  append_number(out, static_cast<std::int64_t>(line.bytes));
  out += '\n';
}

void WorkerLog::append_ndjson(const LogLine& line, std::string_view error) {
  std::string& out = buffer_;
  const auto time = [&](std::string_view key, std::int64_t ns) {
    out += key;
    if (ns != 0) {
      append_number(out, (ns - origin_ns_) / 1000);
    } else {
      out += "null";
    }
  };
  out += "{\"index\":";
  append_number(out, static_cast<std::int64_t>(line.index));
  out += ",\"worker\":";
  append_number(out, worker_);
  out += ",\"connection\":";
  append_number(out, static_cast<std::int64_t>(line.connection));
  time(",\"intended_us\":", line.intended_ns);
  time(",\"start_us\":", line.start_ns);
  time(",\"connected_us\":", line.connected_ns);
  time(",\"sent_us\":", line.sent_ns);
  time(",\"first_byte_us\":", line.first_byte_ns);
  time(",\"end_us\":", line.end_ns);
  out += ",\"status\":";
  if (line.status != 0) {
    append_number(out, line.status);
  } else {
    out += "null";
  }
  out += ",\"error\":";
  if (error.empty()) {
    out += "null";
  } else {
    out += '"';
    append_json_text(out, error);
    out += '"';
  }
  out += ",\"bytes\":";
  append_number(out, static_cast<std::int64_t>(line.bytes));
  out += "}\n";
}

}  // namespace stampede::loadgen
