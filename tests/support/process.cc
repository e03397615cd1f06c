#include "support/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/test_io.h"

namespace stampede::testing {
namespace {

int decode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -999;
}

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ChildProcess::ChildProcess(std::vector<std::string> argv)
    : out_path_(dir_.file("stdout")), err_path_(dir_.file("stderr")) {
  argv = with_forced_io(std::move(argv));
  std::vector<char*> args;
  for (auto& a : argv)
    args.push_back(a.data());
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    execv(args[0], args.data());
    _exit(127);
  }
}

ChildProcess::~ChildProcess() {
  if (running()) {
    kill(pid_, SIGKILL);
    wait(std::chrono::milliseconds(5000));
  }
}

bool ChildProcess::signal(int sig) {
  return running() && kill(pid_, sig) == 0;
}

bool ChildProcess::running() {
  if (status_ != -1000) return false;
  int st = 0;
  pid_t r = waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    status_ = decode(st);
    return false;
  }
  return r == 0;
}

int ChildProcess::wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) return -1000;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  return status_;
}

std::string ChildProcess::stdout_text() const {
  return read_file(out_path_);
}
std::string ChildProcess::stderr_text() const {
  return read_file(err_path_);
}

int wait_for_port_file(const std::string& path, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    std::ifstream in(path);
    int port = 0;
    if (in >> port && port > 0) return port;
    if (std::chrono::steady_clock::now() >= deadline) return 0;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

RunResult run_command(std::vector<std::string> argv, std::chrono::milliseconds timeout) {
  ChildProcess child(std::move(argv));
  RunResult r;
  r.status = child.wait(timeout);
  if (r.status == -1000) {
    child.signal(SIGKILL);
    child.wait(std::chrono::milliseconds(5000));
  }
  r.out = child.stdout_text();
  r.err = child.stderr_text();
  return r;
}

}  // namespace stampede::testing
