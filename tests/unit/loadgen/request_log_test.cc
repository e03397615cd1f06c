// The per-request log's file and lines (loadgen/request_log.h): the name decides the format, the
// columns and their empty values, quoting, buffering in whole lines, and a disk that refuses.
#include "loadgen/request_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::loadgen {
namespace {

using testing::read_file;
using testing::TempDir;

constexpr std::string_view kHeader =
    "index,worker,connection,intended_us,start_us,connected_us,sent_us,first_byte_us,end_us,"
    "status,error,bytes,stream\n";

// A request on a new connection of worker 3: every time set, 1.5 ms after the start and on.
LogLine full_line(std::int64_t origin) {
  LogLine line;
  line.index = 42;
  line.connection = 7;
  line.intended_ns = origin + 1'000'000;
  line.start_ns = origin + 1'500'000;
  line.connected_ns = origin + 1'600'999;  // truncated to whole microseconds
  line.sent_ns = origin + 1'700'000;
  line.first_byte_ns = origin + 2'000'000;
  line.end_ns = origin + 2'100'000;
  line.status = 200;
  line.bytes = 120;
  return line;
}

std::shared_ptr<LogFile> must_open(const std::string& path) {
  auto file = LogFile::open(path);
  EXPECT_TRUE(file.ok()) << (file.ok() ? "" : file.error().message);
  return file.ok() ? *file : nullptr;
}

// The log file `name` opened in a directory of its own: its path and the file (null, with a
// failure added, when it did not open).
struct OpenLog {
  TempDir dir;
  std::string path;
  std::shared_ptr<LogFile> file;

  explicit OpenLog(const std::string& name) : path(dir.file(name)), file(must_open(path)) {}
};

TEST(RequestLog, TheNameSaysTheFormat) {
  EXPECT_EQ(*log_format_of("run.csv"), LogFormat::Csv);
  EXPECT_EQ(*log_format_of("dir/run.ndjson"), LogFormat::Ndjson);
  EXPECT_EQ(*log_format_of("run.jsonl"), LogFormat::Ndjson);
  EXPECT_EQ(*log_format_of("-"), LogFormat::Ndjson);
  for (const char* name : {"run.txt", "run", "run.CSV", ".csv", "run.csv.gz", "run.json"}) {
    auto format = log_format_of(name);
    ASSERT_FALSE(format.ok()) << name;
    EXPECT_EQ(format.error().message,
              std::string("--log '") + name +
                  "': the name must end in .csv, .ndjson or .jsonl (the format), or be - for "
                  "NDJSON on stdout");
  }
}

TEST(RequestLog, CsvHasTheHeaderThenOneLinePerRequestInMicroseconds) {
  const OpenLog csv("run.csv");
  ASSERT_TRUE(csv.file);
  EXPECT_EQ(read_file(csv.path), kHeader);  // written at open, before any request
  {
    const std::int64_t origin = 5'000'000'000;
    WorkerLog log(*csv.file, 3);
    log.start(origin);
    log.append(full_line(origin));
    // A connect that failed on a reused worker log's second socket: no response, no times of one.
    log.append(LogLine{.index = 43,
                       .connection = log.next_connection(),
                       .start_ns = origin + 3'000'000,
                       .end_ns = origin + 3'000'500,
                       .err = ECONNREFUSED});
    // A response with an error status, read on a kept-alive socket.
    LogLine error = full_line(origin);
    error.intended_ns = error.connected_ns = 0;
    error.status = 503;
    log.append(error);
    // An HTTP/2 stream the server reset: its stream id in the last column.
    LogLine reset = error;
    reset.status = 0;
    reset.first_byte_ns = 0;
    reset.bytes = 13;
    reset.code = "RST_STREAM CANCEL";
    reset.stream = 2147483647;
    log.append(reset);
    EXPECT_EQ(read_file(csv.path), kHeader) << "buffered until flushed";
  }
  EXPECT_EQ(read_file(csv.path), std::string(kHeader) +
                                     "42,3,7,1000,1500,1600,1700,2000,2100,200,,120,\n"
                                     "43,3,1,,3000,,,,3000,,ECONNREFUSED,0,\n"
                                     "42,3,7,,1500,,1700,2000,2100,503,503,120,\n"
                                     "42,3,7,,1500,,1700,,2100,,RST_STREAM CANCEL,13,2147483647\n");
}

TEST(RequestLog, NdjsonSaysNullForWhatDoesNotApply) {
  const OpenLog ndjson("run.ndjson");
  ASSERT_TRUE(ndjson.file);
  EXPECT_EQ(read_file(ndjson.path), "");
  {
    WorkerLog log(*ndjson.file, 0);
    log.start(1'000);
    log.append(full_line(1'000));
    log.append(LogLine{.index = 9,
                       .connection = 2,
                       .start_ns = 1'000 + 10'000,
                       .end_ns = 1'000 + 60'010'000,
                       .err = ETIMEDOUT,
                       .stream = 3});
  }
  const std::string text = read_file(ndjson.path);
  EXPECT_EQ(text,
            "{\"index\":42,\"worker\":0,\"connection\":7,\"intended_us\":1000,\"start_us\":1500,"
            "\"connected_us\":1600,\"sent_us\":1700,\"first_byte_us\":2000,\"end_us\":2100,"
            "\"status\":200,\"error\":null,\"bytes\":120,\"stream\":null}\n"
            "{\"index\":9,\"worker\":0,\"connection\":2,\"intended_us\":null,\"start_us\":10,"
            "\"connected_us\":null,\"sent_us\":null,\"first_byte_us\":null,\"end_us\":60010,"
            "\"status\":null,\"error\":\"ETIMEDOUT\",\"bytes\":0,\"stream\":3}\n");
  const auto second = nlohmann::json::parse(text.substr(text.find('\n') + 1));
  EXPECT_EQ(second["error"], "ETIMEDOUT");
}

// A hook's code is any text: quoted in CSV (RFC 4180), escaped in JSON; either reads back whole.
TEST(RequestLog, AHookCodeIsQuotedAndEscaped) {
  const std::string code = "bad, \"very\"\nbad\\\x01";
  TempDir dir;
  auto csv = must_open(dir.file("run.csv"));
  auto ndjson = must_open(dir.file("run.jsonl"));
  ASSERT_TRUE(csv && ndjson);
  for (LogFile* file : {csv.get(), ndjson.get()}) {
    WorkerLog log(*file, 1);
    LogLine line;
    line.index = 1;
    line.start_ns = line.end_ns = 1;
    line.status = 200;  // a response the hook failed
    line.code = code;
    log.append(line);
  }
  EXPECT_EQ(read_file(dir.file("run.csv")),
            std::string(kHeader) + "1,1,0,,0,,,,0,200,\"bad, \"\"very\"\"\nbad\\\x01\",0,\n");
  const auto json = nlohmann::json::parse(read_file(dir.file("run.jsonl")));
  EXPECT_EQ(json["error"], code);
  EXPECT_EQ(json["status"], 200);
}

// The widest line there can be (every number at its most digits, times before the origin) fits
// in the room kept for one line, and reads back as JSON.
TEST(RequestLog, TheWidestLineFitsItsRoom) {
  const OpenLog widest("run.ndjson");
  ASSERT_TRUE(widest.file);
  {
    WorkerLog log(*widest.file, std::numeric_limits<std::uint32_t>::max());
    log.start(std::numeric_limits<std::int64_t>::max());
    LogLine line;
    line.index = line.connection = line.bytes = std::numeric_limits<std::uint64_t>::max();
    line.intended_ns = line.start_ns = line.connected_ns = line.sent_ns = line.first_byte_ns =
        line.end_ns = 1;  // -9223372036854775 µs from the start
    line.status = std::numeric_limits<int>::min();
    line.stream = std::numeric_limits<std::uint32_t>::max();
    log.append(line);
  }
  const std::string text = read_file(widest.path);
  EXPECT_LT(text.size(), WorkerLog::kLineBytes);
  const auto json = nlohmann::json::parse(text);
  EXPECT_EQ(json["stream"], std::numeric_limits<std::uint32_t>::max());
  EXPECT_EQ(json["bytes"], std::numeric_limits<std::uint64_t>::max());
}

// No write per request: the buffer goes to the file when it passes kFlushBytes, in whole lines.
TEST(RequestLog, WritesWholeLinesOnlyWhenTheBufferIsFull) {
  const OpenLog csv("run.csv");
  ASSERT_TRUE(csv.file);
  WorkerLog log(*csv.file, 0);
  const std::size_t header = kHeader.size();
  std::size_t appended = 0;
  while (std::filesystem::file_size(csv.path) == header && appended < 100'000) {
    log.append(full_line(0));
    ++appended;
  }
  const std::size_t written = std::filesystem::file_size(csv.path) - header;
  EXPECT_GE(written, WorkerLog::kFlushBytes);
  EXPECT_LT(written, WorkerLog::kFlushBytes + 100);  // the line that crossed it, no more
  const std::string text = read_file(csv.path);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), appended + 1);
}

TEST(RequestLog, APathThatCannotBeCreatedIsRefusedAtOpen) {
  TempDir dir;
  auto missing = LogFile::open(dir.file("no/such/dir/run.csv"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "--log '" + dir.file("no/such/dir/run.csv") +
                                         "': cannot create it: No such file or directory");
}

// A full disk (/dev/full) refuses the CSV header at open: the run does not start.
TEST(RequestLog, AFullDiskIsRefusedAtOpenForCsv) {
  TempDir dir;
  const std::string path = dir.file("full.csv");
  std::filesystem::create_symlink("/dev/full", path);
  auto file = LogFile::open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message, "--log '" + path + "': cannot write it: No space left on device");
}

// NDJSON has no header: the first flush fails, the file keeps the error and counts every line
// it could not write, the first flush's and every later one's.
TEST(RequestLog, AWriteThatFailsCountsTheLostLines) {
  TempDir dir;
  const std::string path = dir.file("full.ndjson");
  std::filesystem::create_symlink("/dev/full", path);
  auto file = must_open(path);
  ASSERT_TRUE(file);
  EXPECT_EQ(file->error_line(), "");
  {
    WorkerLog first(*file, 0);
    WorkerLog second(*file, 1);
    for (int i = 0; i < 3; ++i)
      first.append(full_line(0));
    first.flush();
    EXPECT_EQ(file->error_line(),
              "--log '" + path +
                  "': writing failed: No space left on device; 3 request lines were not written");
    second.append(full_line(0));
  }
  EXPECT_EQ(file->error_line(),
            "--log '" + path +
                "': writing failed: No space left on device; 4 request lines were not written");
}

}  // namespace
}  // namespace stampede::loadgen
