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

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness/variant_test.hpp"
#include "ppkit/core/checkpoint.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"

extern char** environ;

namespace {
namespace fs = std::filesystem;
using namespace ppkit;

// The CLI under test: PPKIT_CLI where set (a build moved elsewhere, such as
// scripts/gpu-bundle.sh's bundle on a GPU node), else the one this build made.
std::string cli_path() {
  const char* moved = std::getenv("PPKIT_CLI");
  return moved != nullptr && *moved != '\0' ? moved : PPKIT_CLI_PATH;
}

// Starts the CLI with `args`, stdout and stderr to `log`, and the test's
// environment plus `extra_environment` ("NAME=value" entries).
pid_t spawn(std::vector<std::string> args, const std::string& log,
            std::vector<std::string> extra_environment = {}) {
  args.insert(args.begin(), cli_path());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : extra_environment) envp.push_back(e.data());
  for (char** e = environ; *e; ++e) envp.push_back(*e);
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs to completion; returns the exit status (and the log on failure).
int run(const std::vector<std::string>& args, const std::string& log,
        const std::vector<std::string>& extra_environment = {}) {
  const pid_t pid = spawn(args, log, extra_environment);
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
    why = "cannot start " + cli_path() + " (PPKIT_CLI names the ppkit executable of a moved build)";
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
  // The checkpoint of a shorter run of the same problem, continued with more
  // --steps, reaches the same state, probe records and energies.
  auto with_steps = [&](const std::string& steps, std::vector<std::string> extra) {
    auto a = with(std::move(extra));
    *(std::find(a.begin(), a.end(), "--steps") + 1) = steps;
    return a;
  };
  ASSERT_EQ(run(with_steps("600", {"--checkpoint", file("short.h5"), "--checkpoint-every", "250"}),
                file("short.log")),
            0)
      << read_text(file("short.log"));
  ASSERT_EQ(run(with({"--restart", file("short.h5"), "--checkpoint", file("extended.h5"),
                      "--checkpoint-every", "100000"}),
                file("extended.log")),
            0)
      << read_text(file("extended.log"));
  // Fields, CPML memory and probe records as the straight run's; the energy
  // schedule is the continued run's (every 60 steps, the short run's tenth):
  // 25 energies, the last (after step 1499) the straight run's last.
  const auto extended = checkpoint::read(file("extended.h5"), "fdtd");
  const auto straight = checkpoint::read(file("straight.h5"), "fdtd");
  for (const auto& [name, d] : straight.datasets())
    if (name != "energy") {
      ASSERT_TRUE(extended.datasets().count(name)) << name;
      EXPECT_TRUE(d.bytes == extended.datasets().at(name).bytes)
          << "dataset " << name << " differs";
    }
  const auto energy = extended.get<double>("energy");
  ASSERT_EQ(energy.size(), 25u);
  EXPECT_EQ(energy.back(), straight.get<double>("energy").back());
  EXPECT_EQ(extended.get_integer("energy_interval"), 60);
  // A run shorter than the checkpoint's steps done is refused, saying why.
  EXPECT_EQ(run(with_steps("300", {"--restart", file("short.h5")}), file("shorter.log")), 2);
  EXPECT_NE(read_text(file("shorter.log")).find("past this run's 300 steps"), std::string::npos)
      << read_text(file("shorter.log"));
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
                                            "0.7", "--t-end",  "0.12", "--quiet"};
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
  EXPECT_LT(at, 0.12);
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

// `ppkit compare --out` rewrites its report after every row: a run killed part
// way leaves a complete results.json (never half a file) holding the rows it
// measured, and a summary that says the run did not finish.
TEST(KilledCompare, KeepsTheRowsItMeasured) {
  const fs::path dir =
      fs::temp_directory_path() / ("ppkit_kill_compare_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string out = (dir / "report").string();
  fs::create_directories(dir);
  std::string why;
  ASSERT_TRUE(run_and_kill({"compare", "--quick", "--repeats", "2", "--workloads", "fem,sem,fdtd",
                            "--out", out, "--no-plots"},
                           out + "/summary.md", (dir / "compare.log").string(), why))
      << why;
  const auto json = nlohmann::json::parse(read_text(out + "/results.json"));  // whole file
  ASSERT_TRUE(json.contains("rows"));
  ASSERT_GE(json["rows"].size(), 1u);
  for (const auto& row : json["rows"]) {
    EXPECT_FALSE(row.value("variant", "").empty());
    EXPECT_FALSE(row.value("status", "").empty());
  }
  const std::string summary = read_text(out + "/summary.md");
  EXPECT_NE(summary.find("In progress"), std::string::npos) << summary;
  fs::remove_all(dir);
}

// A machine without an OpenCL platform (the ICD loader finds no vendor file):
// an explicit OpenCL variant is refused with the reason and exit status 4
// (nothing could run, docs/cli.md), and `auto` still runs on another backend.
TEST(MissingOpenClPlatform, ExplicitVariantIsRefusedAndAutoRunsElsewhere) {
  const auto names = Registry<FdtdStep>::names();
  if (std::find(names.begin(), names.end(), "opencl/plain") == names.end())
    GTEST_SKIP() << "ppkit built without OpenCL";
  const fs::path dir =
      fs::temp_directory_path() / ("ppkit_no_opencl_" + std::to_string(::getpid()));
  fs::create_directories(dir / "vendors");  // an ICD directory with no vendor in it
  const std::vector<std::string> no_platform = {"OCL_ICD_VENDORS=" + (dir / "vendors").string(),
                                                "OPENCL_VENDOR_PATH=" + (dir / "vendors").string()};
  // Hiding the platforms needs an ICD loader that reads these variables
  // (Debian's ocl-icd does); one that does not still lists them.
  const std::string listed = (dir / "info.log").string();
  ASSERT_EQ(run({"info"}, listed, no_platform), 0) << read_text(listed);
  const std::string info = read_text(listed);
  if (info.find("OpenCL platforms:\n  none") == std::string::npos) {
    fs::remove_all(dir);
    GTEST_SKIP() << "this OpenCL ICD loader ignores OCL_ICD_VENDORS and OPENCL_VENDOR_PATH, so "
                    "no platform can be hidden from the CLI (ppkit info with them set:\n"
                 << info << ")";
  }
  const std::vector<std::string> cavity = {"fdtd", "cavity", "--cells", "8,8,8", "--steps", "20"};
  auto with = [&](std::string variant) {
    auto a = cavity;
    a.insert(a.end(), {"--variant", variant});
    return a;
  };
  const std::string refused = (dir / "refused.log").string();
  EXPECT_EQ(run(with("opencl/plain"), refused, no_platform), 4) << read_text(refused);
  EXPECT_NE(read_text(refused).find("no OpenCL platform"), std::string::npos) << read_text(refused);
  const std::string fallback = (dir / "auto.log").string();
  EXPECT_EQ(run(with("auto"), fallback, no_platform), 0) << read_text(fallback);
  fs::remove_all(dir);
}

}  // namespace
