#include "loadgen/request_log.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include <fmt/format.h>

#include "loadgen/route.h"
#include "loadgen/worker_stats.h"

namespace stampede::loadgen {
namespace {

constexpr std::string_view kCsvHeader =
    "index,worker,connection,intended_us,start_us,connected_us,sent_us,first_byte_us,end_us,"
    "status,error,bytes,stream\n";

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

// "00" to "99": two digits per division.
constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

int digit_count(std::uint64_t v) {
  int n = 1;
  for (;;) {
    if (v < 10) return n;
    if (v < 100) return n + 1;
    if (v < 1000) return n + 2;
    if (v < 10000) return n + 3;
    v /= 10000;
    n += 4;
  }
}

// Writes v in decimal at p; returns the end. The log's hot path: no std::string, no call.
inline char* put_number(char* p, std::uint64_t v) {
  char* const end = p + digit_count(v);
  char* q = end;
  while (v >= 100) {
    const std::size_t i = static_cast<std::size_t>(v % 100) * 2;
    v /= 100;
    q -= 2;
    q[0] = kDigitPairs[i];
    q[1] = kDigitPairs[i + 1];
  }
  if (v >= 10) {
    q[-2] = kDigitPairs[v * 2];
    q[-1] = kDigitPairs[v * 2 + 1];
  } else {
    q[-1] = static_cast<char>('0' + v);
  }
  return end;
}

inline char* put_signed(char* p, std::int64_t v) {
  if (v >= 0) return put_number(p, static_cast<std::uint64_t>(v));
  *p++ = '-';
  return put_number(p, 0 - static_cast<std::uint64_t>(v));
}

// An empty view may have no data at all: memcpy must not see its null pointer.
inline char* put_text(char* p, std::string_view text) {
  if (text.empty()) return p;
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}

// A JSON string's characters (RFC 8259: quote, backslash and controls escaped); at most 6 bytes
// per character. Error names are tokens; only a hook's code can hold anything else.
char* put_json_text(char* p, std::string_view text) {
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      *p++ = '\\';
      *p++ = c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      p = fmt::format_to(p, "\\u{:04x}", static_cast<unsigned>(c));
    } else {
      *p++ = c;
    }
  }
  return p;
}

// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
char* put_csv_text(char* p, std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return put_text(p, text);
  *p++ = '"';
  for (const char c : text) {
    if (c == '"') *p++ = '"';
    *p++ = c;
  }
  *p++ = '"';
  return p;
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
  buffer_.resize(kFlushBytes + kLineBytes);
}

WorkerLog::~WorkerLog() {
  flush();
}

void WorkerLog::flush() {
  if (lines_ == 0) return;
  file_.write(std::string_view(buffer_.data(), used_), lines_);
  used_ = 0;
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
  // No status and no failure: a success that is not an HTTP response (a WebSocket reply).
  if (line.status == 0 || !WorkerStats::is_error_status(line.status)) return {};
  char* end = put_signed(status_name_, line.status);
  return std::string_view(status_name_, static_cast<std::size_t>(end - status_name_));
}

char* WorkerLog::room(std::string_view error) {
  const std::size_t need = used_ + kLineBytes + 6 * error.size();
  if (need > buffer_.size()) buffer_.resize(need);
  return buffer_.data() + used_;
}

void WorkerLog::append(const LogLine& line) {
  const std::string_view error = error_name(line);
  char* p = room(error);
  char* end =
      file_.format() == LogFormat::Csv ? put_csv(p, line, error) : put_ndjson(p, line, error);
  used_ += static_cast<std::size_t>(end - p);
  ++lines_;
  if (used_ >= kFlushBytes) flush();
}

char* WorkerLog::put_time(char* p, std::int64_t ns, std::string_view absent) const {
  if (ns == 0) return put_text(p, absent);
  return put_signed(p, (ns - origin_ns_) / 1000);
}

char* WorkerLog::put_csv(char* p, const LogLine& line, std::string_view error) const {
  p = put_number(p, line.index);
  *p++ = ',';
  p = put_number(p, worker_);
  *p++ = ',';
  p = put_number(p, line.connection);
  for (const std::int64_t ns : {line.intended_ns, line.start_ns, line.connected_ns, line.sent_ns,
                                line.first_byte_ns, line.end_ns}) {
    *p++ = ',';
    p = put_time(p, ns, {});
  }
  *p++ = ',';
  if (line.status != 0) p = put_signed(p, line.status);
  *p++ = ',';
  p = put_csv_text(p, error);
  *p++ = ',';
  p = put_number(p, line.bytes);
  *p++ = ',';
  if (line.stream != 0) p = put_number(p, line.stream);
  *p++ = '\n';
  return p;
}

char* WorkerLog::put_ndjson(char* p, const LogLine& line, std::string_view error) const {
  constexpr std::string_view kNull = "null";
  p = put_text(p, "{\"index\":");
  p = put_number(p, line.index);
  p = put_text(p, ",\"worker\":");
  p = put_number(p, worker_);
  p = put_text(p, ",\"connection\":");
  p = put_number(p, line.connection);
  p = put_text(p, ",\"intended_us\":");
  p = put_time(p, line.intended_ns, kNull);
  p = put_text(p, ",\"start_us\":");
  p = put_time(p, line.start_ns, kNull);
  p = put_text(p, ",\"connected_us\":");
  p = put_time(p, line.connected_ns, kNull);
  p = put_text(p, ",\"sent_us\":");
  p = put_time(p, line.sent_ns, kNull);
  p = put_text(p, ",\"first_byte_us\":");
  p = put_time(p, line.first_byte_ns, kNull);
  p = put_text(p, ",\"end_us\":");
  p = put_time(p, line.end_ns, kNull);
  p = put_text(p, ",\"status\":");
  p = line.status != 0 ? put_signed(p, line.status) : put_text(p, kNull);
  p = put_text(p, ",\"error\":");
  if (error.empty()) {
    p = put_text(p, kNull);
  } else {
    *p++ = '"';
    p = put_json_text(p, error);
    *p++ = '"';
  }
  p = put_text(p, ",\"bytes\":");
  p = put_number(p, line.bytes);
  p = put_text(p, ",\"stream\":");
  p = line.stream != 0 ? put_number(p, line.stream) : put_text(p, kNull);
  return put_text(p, "}\n");
}

}  // namespace stampede::loadgen
