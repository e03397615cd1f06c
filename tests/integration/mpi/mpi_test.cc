// mpirun -np N stampede: N ranks run the N shards of one run and rank 0 prints the one report
// (docs/distributed.md, "MPI"). Against servers in this process on loopback; skipped only when
// mpirun is not installed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/mpi_env.h"
#include "support/process.h"
#include "support/scripted_server.h"
#include "support/target_log.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "support/wait.h"

namespace stampede::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// mpirun's path, or empty when it is not installed.
std::string find_mpirun() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t at = 0; at <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', at), dirs.size());
    const std::filesystem::path candidate =
        std::filesystem::path(dirs.substr(at, end - at)) / "mpirun";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    at = end + 1;
  }
  return {};
}

// The mpirun command line for `ranks` ranks of stampede with `args`.
std::vector<std::string> mpirun_stampede(const std::string& mpirun, int ranks,
                                         std::vector<std::string> args) {
  std::vector<std::string> argv = mpi_sanitizer_env();
  const std::vector<std::string> head = {mpirun, "--allow-run-as-root", "--oversubscribe",
                                         "-np",  std::to_string(ranks), STAMPEDE_BINARY};
  argv.insert(argv.end(), head.begin(), head.end());
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

class Mpi : public ::testing::Test {
 protected:
  void SetUp() override {
    mpirun_ = find_mpirun();
    if (mpirun_.empty()) GTEST_SKIP() << "mpirun is not installed (Debian: openmpi-bin)";
#ifndef STAMPEDE_MPI_BUILT
    FAIL() << "mpirun is installed but stampede-mpi was not built (Debian: libopenmpi-dev)";
#endif
  }
  std::string mpirun_;
};

// -n 20000 over 4 ranks: the report counts what the server saw, every request id 1..20000 (the
// Lua request(id)'s, the run's global numbering) arrives once, and rank 0 alone prints (one JSON
// report), runs done() and sets the status (a threshold: 3).
TEST_F(Mpi, FourRanksSendEachRequestIdOnceAndRankZeroReportsTheExactTotal) {
  TargetLog targets;
  ScriptedServer server(targets.recorder());
  TempDir dir;
  const std::string script = dir.path() + "/ids.lua";
  std::ofstream(script) << "function request(id) return {path = '/item/' .. id} end\n"
                           "function done(summary) io.stderr:write('done saw ', "
                           "summary.totalRequests, '\\n') end\n";
  const RunResult run =
      run_command(mpirun_stampede(mpirun_, 4,
                                  {"-n", "20000", "-c", "8", "-k", "--cores", "1", "-R", script,
                                   "--json", "--quiet", "--min-rps", "1000000000", server.url()}),
                  60s);
  EXPECT_EQ(run.status, 3) << run.err;
  EXPECT_THAT(run.err, HasSubstr("stampede: threshold crossed: "));
  // The script's done() ran once, on rank 0, with the merged result.
  EXPECT_THAT(run.err, HasSubstr("done saw 20000\n"));
  EXPECT_EQ(run.err.find("done saw"), run.err.rfind("done saw")) << run.err;
  const nlohmann::json report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << run.out;
  EXPECT_EQ(report["totalRequests"], 20000) << run.out;
  EXPECT_EQ(report["totalErrors"], 0);
  EXPECT_EQ(report["merge"]["shards"].size(), 4u);
  EXPECT_EQ(report["mpi"]["ranks"], 4);
  EXPECT_EQ(server.requests(), 20000u);
  EXPECT_TRUE(targets.each_once("/item/", 20000));
}

// --rps 2000 -t 2 over 3 ranks: the shards' union is the single schedule, 4000 requests within
// 0.5%, as the server counts them; the text report shows the start spread and the clocks.
TEST_F(Mpi, RateSplitOverRanksSendsTheWholeSchedule) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  const std::string url = "http://127.0.0.1:" + std::to_string(server->port()) + "/";
  const RunResult run = run_command(mpirun_stampede(mpirun_, 3,
                                                    {"--rps", "2000", "-t", "2", "-c", "12", "-k",
                                                     "--cores", "1", "--quiet", url}),
                                    60s);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NEAR(static_cast<double>(server->served()), 4000.0, 20.0);
  EXPECT_THAT(run.out, HasSubstr("Shards (3 merged, start spread "));
  EXPECT_THAT(run.out, HasSubstr("MPI: 3 ranks started at one instant of rank 0's clock"));
}

// CPU seconds (user + system) of this process's reaped children so far: mpirun and, through it,
// its ranks.
double children_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  const auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// A rank whose shard ends first waits for the others idle, not polling a core: two ranks, one
// request each; the server answers rank 1's request (id 2) 1.5 s late. The job with that wait
// costs less than 0.75 CPU s more than the same job without it (Open MPI's blocking MPI_Gather
// spun rank 0 for the whole 1.5 s).
TEST_F(Mpi, RankDoneFirstWaitsForTheOthersIdle) {
  ScriptedServer server([](std::uint64_t, const std::string& request) {
    ScriptedReply reply = ok_reply(request);
    if (request.starts_with("GET /late/")) reply.delay = 1500ms;
    return reply;
  });
  TempDir dir;
  const auto job_cpu = [&](const std::string& prefix) {
    const std::string script = dir.path() + "/" + prefix + ".lua";
    std::ofstream(script) << "function request(id) return {path = (id == 2 and '/" << prefix
                          << "/' or '/now/') .. id} end\n";
    const double before = children_cpu_seconds();
    const RunResult run = run_command(mpirun_stampede(mpirun_, 2,
                                                      {"-n", "2", "-c", "2", "--cores", "1", "-R",
                                                       script, "--quiet", server.url()}),
                                      60s);
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_THAT(run.out, HasSubstr("Shards (2 merged"));
    return children_cpu_seconds() - before;
  };
  const double prompt = job_cpu("soon");
  const double late = job_cpu("late");
  EXPECT_EQ(server.requests(), 4u);
  EXPECT_LT(late - prompt, 0.75) << "with the wait " << late << " CPU s, without " << prompt;
}

// Options every rank refuses: one line (rank 0's, not one per rank), a non-zero status, no run.
TEST_F(Mpi, BadOptionsAreOneLineAndNoRun) {
  ScriptedServer server([](std::uint64_t, const std::string& r) { return ok_reply(r); });
  const RunResult run =
      run_command(mpirun_stampede(mpirun_, 2, {"-n", "100", "--shard", "1/2", server.url()}), 30s);
  EXPECT_NE(run.status, 0);
  EXPECT_THAT(run.err, HasSubstr("stampede: --shard: under mpirun each rank is a shard"));
  EXPECT_EQ(run.err.find("stampede: "), run.err.rfind("stampede: ")) << run.err;
  EXPECT_EQ(server.requests(), 0u);
}

// The ranks of mpirun `parent` (children running stampede-mpi), by their MPI rank.
std::vector<std::pair<int, pid_t>> ranks_of(pid_t parent) {
  std::vector<std::pair<int, pid_t>> ranks;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_file(entry.path() / "stat");
    const std::size_t close = stat.rfind(')');
    if (stat.find("(stampede-mpi)") == std::string::npos || close == std::string::npos) continue;
    int ppid = 0;
    char state = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) != 2) continue;
    if (ppid != parent) continue;
    const std::string environ = read_file(entry.path() / "environ");
    const std::string key = std::string("OMPI_COMM_WORLD_RANK=");
    const std::size_t at = environ.find(key);
    if (at == std::string::npos) continue;
    ranks.emplace_back(std::atoi(environ.c_str() + at + key.size()), std::stoi(name));
  }
  return ranks;
}

// A rank killed mid-run: the job ends (bounded), non-zero, naming the rank, no rank left.
TEST_F(Mpi, KilledRankEndsTheJobNonZero) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  const std::string url = "http://127.0.0.1:" + std::to_string(server->port()) + "/";
  ChildProcess job(mpirun_stampede(
      mpirun_, 2, {"--rps", "500", "-t", "30", "-c", "2", "-k", "--cores", "1", "--quiet", url}));
  ASSERT_TRUE(eventually([&] { return server->served() > 0; }, 20s));
  std::vector<std::pair<int, pid_t>> ranks = ranks_of(job.pid());
  ASSERT_EQ(ranks.size(), 2u);
  pid_t victim = 0;
  for (auto [rank, pid] : ranks)
    if (rank == 1) victim = pid;
  ASSERT_NE(victim, 0);
  ASSERT_EQ(::kill(victim, SIGKILL), 0);
  const auto killed = std::chrono::steady_clock::now();
  const int status = job.wait(15s);
  EXPECT_NE(status, -1000) << "mpirun still running 15 s after a rank was killed";
  EXPECT_NE(status, 0);
  EXPECT_LT(elapsed_ms(killed), 15000);
  EXPECT_THAT(job.stderr_text(), HasSubstr("rank 1"));
  for (auto [rank, pid] : ranks) {
    EXPECT_TRUE(eventually([pid = pid] { return ::kill(pid, 0) != 0; }, 5s))
        << "rank " << rank << " (pid " << pid << ") still there";
  }
}

// Ctrl-C on mpirun (it passes SIGCONT and SIGTERM to every rank, and SIGKILL a second later):
// every rank stops its run, the results are reduced, and rank 0 prints the report of what ran,
// as the single-process generator does; mpirun ends and no rank is left.
TEST_F(Mpi, CtrlCOnMpirunStopsEveryRankAndRankZeroReportsWhatRan) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  const std::string url = "http://127.0.0.1:" + std::to_string(server->port()) + "/";
  // mpirun's own timing (docs/distributed.md): SIGTERM about 1 s after Ctrl-C, SIGKILL 1 s
  // after that; a rank stops, reduces and prints in milliseconds.
  ChildProcess job(mpirun_stampede(
      mpirun_, 2,
      {"--rps", "400", "-t", "60", "-c", "2", "-k", "--cores", "1", "--quiet", "--json", url}));
  ASSERT_TRUE(eventually([&] { return server->served() >= 20; }, 20s));
  const std::vector<std::pair<int, pid_t>> ranks = ranks_of(job.pid());
  ASSERT_EQ(ranks.size(), 2u);
  ASSERT_TRUE(job.signal(SIGINT));
  const int status = job.wait(15s);
  ASSERT_NE(status, -1000) << "mpirun still running 15 s after Ctrl-C";
  const nlohmann::json report = nlohmann::json::parse(job.stdout_text(), nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << job.stdout_text() << job.stderr_text();
  EXPECT_EQ(report["mpi"]["ranks"], 2);
  EXPECT_EQ(report["merge"]["shards"].size(), 2u);
  // What ran: more than the 20 seen before Ctrl-C, no more than the server answered, far fewer
  // than the 24 000 of the whole minute.
  EXPECT_GE(report["totalRequests"].get<std::uint64_t>(), 20u);
  EXPECT_LE(report["totalRequests"].get<std::uint64_t>(), server->served());
  EXPECT_LT(report["totalRequests"].get<std::uint64_t>(), 12000u);
  for (auto [rank, pid] : ranks) {
    EXPECT_TRUE(eventually([pid = pid] { return ::kill(pid, 0) != 0; }, 5s))
        << "rank " << rank << " (pid " << pid << ") still there";
  }
}

// Each rank checks its own part of -c against its open-file limit: -c 2000 over two ranks needs
// 1000 descriptors a rank, over a limit of 512: refused on every rank, one line, exit 2, nothing
// sent.
TEST_F(Mpi, RankOverItsFileLimitIsRefusedWithOneLine) {
  ScriptedServer server([](std::uint64_t, const std::string& r) { return ok_reply(r); });
  std::vector<std::string> argv =
      mpirun_stampede(mpirun_, 2, {"-n", "2", "-c", "2000", "--quiet", server.url()});
  argv.insert(argv.begin(), {"/usr/bin/prlimit", "--nofile=512:512"});
  const RunResult refused = run_command(argv, 30s);
  EXPECT_NE(refused.status, 0);
  EXPECT_THAT(refused.err, HasSubstr("stampede: -c 2000 (1000 of them in shard 1/2) needs about "));
  EXPECT_THAT(refused.err, HasSubstr("(512; hard limit 512)"));
  EXPECT_EQ(refused.err.find("stampede: "), refused.err.rfind("stampede: ")) << refused.err;
  EXPECT_EQ(server.requests(), 0u);
}

}  // namespace
}  // namespace stampede::testing
