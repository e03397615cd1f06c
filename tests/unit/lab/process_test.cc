#include "lab/process.h"

#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace stampede::lab {
namespace {

using namespace std::chrono_literals;

// True once /proc has no live process `pid` (gone, or a zombie), polled for up to 5 s.
bool gone(pid_t pid) {
  for (int i = 0; i < 500; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return true;
    const auto close = text.rfind(')');
    if (close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z') {
      return true;
    }
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// Reads a pid the child wrote, waiting up to 5 s for it.
pid_t read_pid(const std::string& path) {
  for (int i = 0; i < 500; ++i) {
    std::ifstream in(path);
    pid_t pid = 0;
    if (in >> pid && pid > 0) return pid;
    std::this_thread::sleep_for(10ms);
  }
  return 0;
}

class LabProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::create("stampede-lab-test");
    ASSERT_TRUE(dir.ok());
    dir_.emplace(std::move(dir).value());
  }
  SpawnOptions sh(const std::string& script) {
    return {{"/bin/sh", "-c", script}, dir_->file("child"), "the child"};
  }
  std::optional<TempDir> dir_;
};

TEST_F(LabProcessTest, StopEndsTheWholeGroup) {
  const std::string pid_file = dir_->file("grandchild.pid");
  auto p = Process::spawn(sh("sleep 60 & echo $! > " + pid_file + "; wait"));
  ASSERT_TRUE(p.ok()) << p.error().message;
  const pid_t grandchild = read_pid(pid_file);
  ASSERT_GT(grandchild, 0);
  EXPECT_FALSE((*p)->ended().has_value());
  const ExitStatus status = (*p)->stop(1000ms);
  EXPECT_TRUE(status.signaled);
  EXPECT_TRUE(gone(grandchild));
  EXPECT_EQ((*p)->stop().code, status.code);  // idempotent
}

// The hang scenario stops an instance with SIGSTOP. A process that handles SIGTERM (serve shuts
// down gracefully) cannot run its handler while stopped: stop() continues the group first, so
// it ends on SIGTERM as it would running, not by SIGKILL after the grace.
TEST_F(LabProcessTest, StopLetsAStoppedGroupHandleSigterm) {
  const std::string ready = dir_->file("trap.ready");
  auto p =
      Process::spawn(sh("trap 'exit 7' TERM; touch " + ready + "; while :; do sleep 0.05; done"));
  ASSERT_TRUE(p.ok()) << p.error().message;
  for (int i = 0; i < 500 && !std::filesystem::exists(ready); ++i)
    std::this_thread::sleep_for(10ms);
  (*p)->kill_group(SIGSTOP);
  const ExitStatus status = (*p)->stop(1000ms);
  EXPECT_FALSE(status.signaled) << status.describe();
  EXPECT_EQ(status.code, 7) << status.describe();
}

TEST_F(LabProcessTest, DestructorStopsAProcessThatIgnoresSigterm) {
  const std::string pid_file = dir_->file("self.pid");
  pid_t pid = 0;
  {
    auto p = Process::spawn(sh("trap '' TERM; echo $$ > " + pid_file + "; sleep 60"));
    ASSERT_TRUE(p.ok());
    pid = read_pid(pid_file);
    ASSERT_GT(pid, 0);
  }
  EXPECT_TRUE(gone(pid));
}

TEST_F(LabProcessTest, EarlyExitIsSeenWithItsOutput) {
  auto p = Process::spawn(sh("echo starting; echo 'cannot listen: in use' >&2; exit 3"));
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE((*p)->wait_end(5000ms));
  auto ended = (*p)->ended();
  ASSERT_TRUE(ended.has_value());
  EXPECT_FALSE(ended->signaled);
  EXPECT_EQ(ended->code, 3);
  EXPECT_EQ(ended->describe(), "exit status 3");
  EXPECT_EQ((*p)->output_tail(), "cannot listen: in use");
  EXPECT_EQ((*p)->stop().code, 3);
}

TEST_F(LabProcessTest, OutputTailFallsBackToStdoutAndJoinsLines) {
  auto p = Process::spawn(sh("printf 'one\\ntwo\\n'"));
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE((*p)->wait_end(5000ms));
  EXPECT_EQ((*p)->output_tail(), "one | two");
}

TEST_F(LabProcessTest, KillGroupFromAnotherThread) {
  auto p = Process::spawn(sh("sleep 60"));
  ASSERT_TRUE(p.ok());
  std::thread killer([&] { (*p)->kill_group(SIGKILL); });
  killer.join();
  EXPECT_TRUE((*p)->wait_end(5000ms));
  EXPECT_TRUE((*p)->ended()->signaled);
  EXPECT_EQ((*p)->ended()->code, SIGKILL);
}

TEST_F(LabProcessTest, AProgramThatCannotRunIsAnError) {
  auto p = Process::spawn({{"/nonexistent/program"}, dir_->file("x"), "the balancer"});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message,
            "cannot start the balancer: cannot run /nonexistent/program: No such file or "
            "directory");
}

TEST(LabTempDir, IsRemovedWithItsContents) {
  std::string path;
  {
    auto dir = TempDir::create("stampede-lab-test");
    ASSERT_TRUE(dir.ok());
    path = dir->path();
    std::ofstream(dir->file("x")) << "x";
    EXPECT_TRUE(std::filesystem::exists(dir->file("x")));
    TempDir moved = std::move(dir).value();
    EXPECT_EQ(moved.path(), path);
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace stampede::lab
