// The per-request log (--log FILE): one line for every request the run's report counts, in CSV or
// NDJSON (docs/output.md, "Per-request log", holds every column and its unit).
//
// LogFile is the file, opened by prepare() (plan.h) before anything is sent: a path that cannot be
// created is refused there, and so is a CSV file whose header line cannot be written (a full
// disk). It is shared by the run's workers; each writes through a WorkerLog of its own, a buffer
// of whole lines that it hands to the file only when full and once at the end of its run: one
// write() per ~256 KiB, never one per request, and the file's lock is taken only then. A write
// that fails (ENOSPC, EIO...) keeps its first error and drops every later line; the runner puts
// error_line() into RunResult::log_error, which the command line prints as one line after the
// report.
//
// Lines say what the report counts: one per record in WorkerStats (a response, a transport
// failure, a hook's verdict), named as the report names it (error: "500", "ETIMEDOUT", a hook's
// code), so the lines by status and by error add up to the report's counts exactly. A request
// abandoned in flight (an interrupt, the drain limit of a -t run) is in neither. Each client
// fills the lines of what it counts: a Connection one per request (connection_log.cc; pipelined,
// one per request of the batch, an unanswered one under its own error), an H2Client one per
// stream (with its stream id), a WsClient one per message.
//
// Times are microseconds from the run's start (the same origin for every worker, the timeline's),
// as integers; a time that does not apply is empty in CSV and null in NDJSON.
//
// Thread: LogFile's write() from any thread; a WorkerLog from its worker's thread only.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace stampede::loadgen {

enum class LogFormat : std::uint8_t { Csv, Ndjson };

// "-" (stdout) or a file name ending in .csv, .ndjson or .jsonl; the error names the option.
Expected<LogFormat> log_format_of(std::string_view path);

class LogFile {
 public:
  // Creates (or truncates) `path`, or takes stdout for "-" (NDJSON); writes the CSV header.
  static Expected<std::shared_ptr<LogFile>> open(const std::string& path);
  ~LogFile();
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;

  LogFormat format() const { return format_; }
  // Appends whole lines (`lines` of them) at once; after a failure, counts them as lost.
  void write(std::string_view text, std::uint64_t lines);
  // Empty while every line was written; else one line: what failed and how many lines were lost.
  std::string error_line() const;

 private:
  LogFile(int fd, bool owned, LogFormat format, std::string path);

  const int fd_;
  const bool owned_;  // false for stdout
  const LogFormat format_;
  const std::string path_;
  mutable std::mutex mutex_;
  int error_ = 0;  // errno of the first failed write
  std::uint64_t lost_ = 0;
};

// One request's line. Times are monotonic ns (mono_ns()); 0: does not apply.
struct LogLine {
  std::uint64_t index = 0;         // the request's index (--index; unique in the run)
  std::uint64_t connection = 0;    // the socket it went on: 1, 2... per worker (0: none opened)
  std::int64_t intended_ns = 0;    // --rps: its time in the schedule
  std::int64_t start_ns = 0;       // it began: its connect started, or its first byte was written
  std::int64_t connected_ns = 0;   // it opened its connection: the TCP connect completed
  std::int64_t sent_ns = 0;        // its first byte was written
  std::int64_t first_byte_ns = 0;  // the response's first bytes were read
  std::int64_t end_ns = 0;         // its response ended, or it failed
  int status = 0;                  // the response's status; 0: none (a WebSocket reply: no error)
  int err = 0;                     // a transport failure's errno (route.h, failure_name)
  std::string_view code;           // a hook's error code (it replaces the status's error name)
  std::uint64_t bytes = 0;         // bytes of its response read (head, body, framing)
  std::uint32_t stream = 0;        // --http2: its stream's id on the connection; 0: none
};

class WorkerLog {
 public:
  static constexpr std::size_t kFlushBytes = 256 * 1024;
  // Room for one line but its error text: 13 numbers of at most 20 digits and NDJSON's keys.
  static constexpr std::size_t kLineBytes = 512;

  WorkerLog(LogFile& file, std::uint32_t worker);
  ~WorkerLog();  // flushes
  WorkerLog(const WorkerLog&) = delete;
  WorkerLog& operator=(const WorkerLog&) = delete;

  // The run's start (mono_ns), before the first line.
  void start(std::int64_t start_ns) { origin_ns_ = start_ns; }
  // A new socket's id (1, 2, ...).
  std::uint64_t next_connection() { return ++connections_; }
  void append(const LogLine& line);
  // Hands the buffered lines to the file.
  void flush();

 private:
  std::string_view error_name(const LogLine& line);
  // Where the next line goes, with room for kLineBytes and `error` escaped (the buffer grows
  // only for a hook's code of more than a few dozen bytes).
  char* room(std::string_view error);
  char* put_csv(char* p, const LogLine& line, std::string_view error) const;
  char* put_ndjson(char* p, const LogLine& line, std::string_view error) const;
  // A time as microseconds from the start; an empty field (CSV) or null (NDJSON) when 0.
  char* put_time(char* p, std::int64_t ns, std::string_view absent) const;

  LogFile& file_;
  const std::uint32_t worker_;
  std::int64_t origin_ns_ = 0;
  std::uint64_t connections_ = 0;
  // Lines are formatted in place: buffer_'s size is its capacity, used_ what holds lines.
  std::string buffer_;
  std::size_t used_ = 0;
  std::uint64_t lines_ = 0;
  char status_name_[12] = {};            // scratch for an error status ("503")
  std::array<std::string, 256> errnos_;  // failure_name() by errno, filled when first seen
};

}  // namespace stampede::loadgen
