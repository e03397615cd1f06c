#include "lab/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

namespace stampede::lab {
namespace {

ExitStatus decode_siginfo(const siginfo_t& info) {
  ExitStatus s;
  s.signaled = info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED;
  s.code = info.si_status;
  return s;
}

ExitStatus decode_wait(int status) {
  ExitStatus s;
  if (WIFSIGNALED(status)) {
    s.signaled = true;
    s.code = WTERMSIG(status);
  } else {
    s.code = WEXITSTATUS(status);
  }
  return s;
}

std::string read_tail(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff start = size > static_cast<std::streamoff>(max_bytes)
                                   ? size - static_cast<std::streamoff>(max_bytes)
                                   : 0;
  in.seekg(start);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream lines(text);
  std::string line, joined;
  while (std::getline(lines, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.pop_back();
    if (line.empty()) continue;
    if (!joined.empty()) joined += " | ";
    joined += line;
  }
  return joined;
}

// Everything the child needs, prepared before fork: after fork only async-signal-safe calls.
struct ChildSetup {
  std::vector<char*> argv;
  int in = -1, out = -1, err = -1, report = -1;
  pid_t parent = 0;
};

[[noreturn]] void exec_child(const ChildSetup& s) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != s.parent) _exit(127);  // the lab died before prctl took effect
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &dfl, nullptr);
  dup2(s.in, 0);
  dup2(s.out, 1);
  dup2(s.err, 2);
  execv(s.argv[0], s.argv.data());
  const int e = errno;
  [[maybe_unused]] ssize_t w = write(s.report, &e, sizeof e);
  _exit(127);
}

}  // namespace

Expected<TempDir> TempDir::create(std::string_view prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = fmt::format("{}/{}-XXXXXX", base && *base ? base : "/tmp", prefix);
  if (mkdtemp(tmpl.data()) == nullptr) {
    return make_error(
        fmt::format("cannot create a temporary directory {}: {}", tmpl, std::strerror(errno)));
  }
  return TempDir(std::move(tmpl));
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, "")) {}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
    path_ = std::exchange(other.path_, "");
  }
  return *this;
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

std::string ExitStatus::describe() const {
  if (signaled) return fmt::format("killed by signal {} ({})", code, strsignal(code));
  return fmt::format("exit status {}", code);
}

Process::Process(pid_t pid, std::string label, std::string log_base)
    : pid_(pid), label_(std::move(label)), log_base_(std::move(log_base)) {
  pidfd_.reset(static_cast<int>(syscall(SYS_pidfd_open, pid_, 0)));
}

Expected<std::unique_ptr<Process>> Process::spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return make_error(options.label + ": empty command");
  std::vector<std::string> args = options.argv;
  ChildSetup setup;
  for (std::string& a : args)
    setup.argv.push_back(a.data());
  setup.argv.push_back(nullptr);
  setup.parent = getpid();
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  net::Fd in(open("/dev/null", O_RDONLY | O_CLOEXEC));
  net::Fd out(open((options.log_base + ".out").c_str(), flags, 0644));
  net::Fd err(open((options.log_base + ".err").c_str(), flags, 0644));
  int report[2];
  if (!in || !out || !err || pipe2(report, O_CLOEXEC) != 0) {
    return make_error(fmt::format("cannot start {}: cannot open its log files under {}: {}",
                                  options.label, options.log_base, std::strerror(errno)));
  }
  net::Fd report_read(report[0]), report_write(report[1]);
  setup.in = in.get();
  setup.out = out.get();
  setup.err = err.get();
  setup.report = report_write.get();
  const pid_t pid = fork();
  if (pid < 0) {
    return make_error(
        fmt::format("cannot start {}: fork: {}", options.label, std::strerror(errno)));
  }
  if (pid == 0) exec_child(setup);
  setpgid(pid, pid);  // also done by the child: whichever runs first, the group exists
  std::unique_ptr<Process> process(new Process(pid, options.label, options.log_base));
  report_write.reset();
  int exec_errno = 0;
  ssize_t n;
  do {
    n = read(report_read.get(), &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  if (n == sizeof exec_errno) {
    process->stop(std::chrono::milliseconds(0));
    return make_error(fmt::format("cannot start {}: cannot run {}: {}", options.label,
                                  options.argv[0], std::strerror(exec_errno)));
  }
  return process;
}

Process::~Process() {
  stop();
}

void Process::kill_group(int sig) const {
  if (!reaped_) ::kill(-pid_, sig);
}

std::optional<ExitStatus> Process::ended() {
  if (reaped_) return reaped_;
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return std::nullopt;
  }
  if (info.si_pid == 0) return std::nullopt;
  return decode_siginfo(info);
}

bool Process::wait_end(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (ended()) return true;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    if (pidfd_) {
      pollfd p{pidfd_.get(), POLLIN, 0};
      poll(&p, 1, static_cast<int>(left.count()));
    } else {
      // No pidfd (old kernel): a short bounded pause between checks.
      std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(5)));
    }
  }
}

ExitStatus Process::stop(std::chrono::milliseconds grace) {
  if (reaped_) return *reaped_;
  if (!ended()) {
    // A stopped group (the hang scenario's SIGSTOP) would keep SIGTERM pending through the
    // whole grace: continue it first, so it ends as it would have running.
    kill_group(SIGCONT);
    kill_group(SIGTERM);
    wait_end(grace);
  }
  // The leader is a zombie or still running: either way the group id is still reserved, so
  // this reaches exactly what is left of the group.
  kill_group(SIGKILL);
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  reaped_ = r == pid_ ? decode_wait(status) : ExitStatus{true, SIGKILL};
  pidfd_.reset();
  return *reaped_;
}

std::string Process::output_tail(std::size_t max_bytes) const {
  std::string tail = read_tail(log_base_ + ".err", max_bytes);
  if (tail.empty()) tail = read_tail(log_base_ + ".out", max_bytes);
  return tail;
}

}  // namespace stampede::lab
