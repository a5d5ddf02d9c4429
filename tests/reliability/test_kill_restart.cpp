// A run of `ppkit fdtd` / `ppkit sph` writing checkpoints is killed with
// SIGKILL in the middle, restarted from its last checkpoint, and must end in
// exactly the final state of an uninterrupted run (bit for bit: same binary,
// same backend, same order of operations). Final states are compared through
// the checkpoint each run writes when it finishes.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <fstream>
#include <filesystem>
#include <thread>

#include "harness/variant_test.hpp"
#include "ppkit/core/checkpoint.hpp"

extern char** environ;

namespace {
namespace fs = std::filesystem;
using namespace ppkit;

pid_t spawn(std::vector<std::string> args, const std::string& log) {
  args.insert(args.begin(), PPKIT_CLI_PATH);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs to completion; returns the exit status (and the log on failure).
int run(const std::vector<std::string>& args, const std::string& log) {
  const pid_t pid = spawn(args, log);
  if (pid < 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Starts the run, waits for its first checkpoint, kills it with SIGKILL.
// Returns false (with a reason) when it ended before it could be killed.
bool run_and_kill(const std::vector<std::string>& args, const std::string& checkpoint,
                  const std::string& log, std::string& why) {
  const pid_t pid = spawn(args, log);
  if (pid < 0) {
    why = "cannot start " + std::string(PPKIT_CLI_PATH);
    return false;
  }
  const auto start = std::chrono::steady_clock::now();
  while (!fs::exists(checkpoint)) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      why = "the run ended before its first checkpoint: " + read_text(log);
      return false;
    }
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(120)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      why = "no checkpoint after 120 s";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
    why = "the run finished before SIGKILL arrived: " + read_text(log);
    return false;
  }
  return true;
}

void expect_same_state(const std::string& a_path, const std::string& b_path,
                       const std::string& kind) {
  const auto a = checkpoint::read(a_path, kind), b = checkpoint::read(b_path, kind);
  ASSERT_EQ(a.datasets().size(), b.datasets().size());
  for (const auto& [name, d] : a.datasets()) {
    ASSERT_TRUE(b.datasets().count(name)) << name;
    EXPECT_TRUE(d.bytes == b.datasets().at(name).bytes)
        << kind << " dataset " << name << " differs";
  }
  EXPECT_EQ(a.doubles(), b.doubles());
  EXPECT_EQ(a.integers(), b.integers());
}

class KillRestart : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!checkpoint::available()) GTEST_SKIP() << "ppkit built without HDF5";
    dir_ = fs::temp_directory_path() / ("ppkit_kill_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(KillRestart, FdtdReachesTheUninterruptedFinalState) {
  const std::vector<std::string> problem = {
      "fdtd",    "cavity", "--cells",   "20,16,12",
      "--steps", "1500",   "--variant", "kokkos-serial/plain"};
  auto with = [&](std::vector<std::string> extra) {
    auto a = problem;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  std::string why;
  ASSERT_TRUE(run_and_kill(with({"--checkpoint", file("killed.h5"), "--checkpoint-every", "20"}),
                           file("killed.h5"), file("killed.log"), why))
      << why;
  const auto at = checkpoint::read(file("killed.h5"), "fdtd").get_integer("step");
  EXPECT_GT(at, 0);
  EXPECT_LT(at, 1500) << "the kill came after the end";
  ASSERT_EQ(run(with({"--restart", file("killed.h5"), "--checkpoint", file("restarted.h5"),
                      "--checkpoint-every", "100000"}),
                file("restarted.log")),
            0)
      << read_text(file("restarted.log"));
  ASSERT_EQ(run(with({"--checkpoint", file("straight.h5"), "--checkpoint-every", "100000"}),
                file("straight.log")),
            0)
      << read_text(file("straight.log"));
  EXPECT_EQ(checkpoint::read(file("restarted.h5"), "fdtd").get_integer("step"), 1500);
  expect_same_state(file("restarted.h5"), file("straight.h5"), "fdtd");
  // A checkpoint of another problem is refused with both sizes named.
  EXPECT_EQ(run({"fdtd", "cavity", "--cells", "10,8,6", "--steps", "100", "--variant",
                 "kokkos-serial/plain", "--restart", file("straight.h5")},
                file("other.log")),
            2);
  EXPECT_NE(read_text(file("other.log")).find("is of another problem"), std::string::npos)
      << read_text(file("other.log"));
}

TEST_F(KillRestart, SphReachesTheUninterruptedFinalState) {
  const std::vector<std::string> problem = {"sph", "dambreak", "--dp", "0.06",   "--tank-height",
                                            "0.7", "--t-end",  "0.25", "--quiet"};
  auto with = [&](std::vector<std::string> extra) {
    auto a = problem;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  std::string why;
  ASSERT_TRUE(run_and_kill(with({"--checkpoint", file("killed.h5"), "--checkpoint-every", "0.01"}),
                           file("killed.h5"), file("killed.log"), why))
      << why;
  const double at = checkpoint::read(file("killed.h5"), "sph").get_double("time");
  EXPECT_GT(at, 0);
  EXPECT_LT(at, 0.25);
  ASSERT_EQ(run(with({"--restart", file("killed.h5"), "--checkpoint", file("restarted.h5"),
                      "--checkpoint-every", "100"}),
                file("restarted.log")),
            0)
      << read_text(file("restarted.log"));
  ASSERT_EQ(run(with({"--checkpoint", file("straight.h5"), "--checkpoint-every", "100"}),
                file("straight.log")),
            0)
      << read_text(file("straight.log"));
  expect_same_state(file("restarted.h5"), file("straight.h5"), "sph");
}

}  // namespace
