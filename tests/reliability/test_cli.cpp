// The `ppkit` command line against a table of bad inputs: each must be refused
// before any work, within a second, with its exit code (docs/cli.md) and a
// message naming the problem. Also `--version`, `--help`'s exit codes and
// `ppkit list` against the registries of this process.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ppkit/core/info.hpp"
#include "ppkit/core/memory_check.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/nekbone.hpp"

extern char** environ;

namespace {
namespace fs = std::filesystem;

std::string cli_path() {
  const char* moved = std::getenv("PPKIT_CLI");
  return moved != nullptr && *moved != '\0' ? moved : PPKIT_CLI_PATH;
}

struct Outcome {
  int rc = -1;
  double seconds = 0;
  std::string output;  // stdout and stderr together
};

// Runs the CLI with `args` to completion (killed after 60 s: a hang fails the
// test instead of blocking CI).
Outcome run_cli(std::vector<std::string> args) {
  const std::string log =
      (fs::temp_directory_path() / ("ppkit_cli_" + std::to_string(getpid()) + ".log")).string();
  args.insert(args.begin(), {"timeout", "60", cli_path()});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  Outcome out;
  pid_t pid = -1;
  const auto start = std::chrono::steady_clock::now();
  const int spawned = posix_spawnp(&pid, "timeout", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return out;
  int status = 0;
  waitpid(pid, &status, 0);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(log);
  out.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  fs::remove(log);
  return out;
}

std::string joined(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

struct BadInput {
  std::vector<std::string> args;
  int rc;
  std::string message;  // a part of the error message
};

const std::string kProfile = (fs::temp_directory_path() / "ppkit_cli_sar.csv").string();

// Inputs that used to hang, run away or fail late (issue: a command line users
// trust), and other user mistakes of every command.
const std::vector<BadInput> kBadInputs = {
    // SPH: a spacing with no fluid particle stepped an empty tank forever.
    {{"sph", "dambreak", "--dp", "2", "--t-end", "1"}, 2, "no fluid particle"},
    {{"sph", "dambreak", "--dp", "5", "--t-end", "1"}, 2, "0 fluid"},
    {{"sph", "dambreak", "--dp", "inf", "--t-end", "1"}, 2, "--dp inf is not finite"},
    {{"sph", "dambreak", "--dp", "0.04", "--t-end", "1", "--c0-coefficient", "inf"},
     2,
     "--c0-coefficient inf is not finite"},
    {{"sph", "dambreak", "--dp", "-1", "--t-end", "1"}, 2, "--dp"},
    {{"sph", "step-history", "--dp", "2", "--csv", kProfile}, 2, "no fluid particle"},
    {{"sph", "dambreak", "--dp", "0.04", "--t-end", "1", "--variant", "nope"},
     2,
     "unknown variant 'nope'"},
    // FDTD: millions of planned steps ran for hours with memory growing.
    {{"fdtd", "halfspace", "--eps-r", "50", "--sigma", "1e6", "--rho", "1000", "--freq", "9e8",
      "--sar-profile", kProfile},
     2,
     "plans 1549925 time steps"},
    {{"fdtd", "halfspace", "--eps-r", "50", "--sigma", "1", "--rho", "1000", "--freq", "9e8",
      "--cells-per-wavelength", "100000", "--sar-profile", kProfile},
     2,
     "more than --max-steps 1000000"},
    {{"fdtd", "cavity", "--steps", "5000", "--max-steps", "4999"}, 2, "plans 5000 time steps"},
    {{"fdtd", "cavity", "--steps", "10", "--max-steps", "0"}, 2, "--max-steps 0"},
    {{"fdtd", "dipole", "--steps", "2000000"}, 2, "--max-steps 2000000 or more"},
    {{"fdtd", "cavity", "--cells", "20000,20000,20000", "--steps", "10"},
     2,
     "GiB on host, which has"},
    {{"fdtd", "halfspace", "--eps-r", "0.5", "--sigma", "1", "--rho", "1000", "--freq", "9e8",
      "--sar-profile", kProfile},
     2,
     "--eps-r"},
    {{"fdtd", "halfspace", "--eps-r", "50", "--sigma", "1", "--rho", "1000", "--freq", "9e8",
      "--cells-per-wavelength", "4", "--sar-profile", kProfile},
     2,
     "too coarse"},
    {{"fdtd", "cavity", "--cells", "1,2,3"}, 2, "too small"},
    {{"fdtd", "cavity", "--variant", "nope"}, 2, "unknown variant 'nope'"},
    {{"fdtd", "run", "--case", "/nonexistent/case.json"}, 2, "cannot read case file"},
    // SEM: std::bad_alloc after seconds and gigabytes.
    {{"sem", "axhelm", "--elements", "100000,100000,100000"}, 2, "GiB on host, which has"},
    {{"sem", "nekbone", "--elements", "100000,100000,100000"}, 2, "GiB on host, which has"},
    {{"sem", "axhelm", "--order", "40"}, 2, "--order 40"},
    {{"sem", "axhelm", "--elements", "8,8"}, 2, "not three integers"},
    {{"sem", "axhelm", "--elements", "2,2,2", "--variant", "nothing*"},
     2,
     "no variant of sem.axhelm matches"},
    {{"sem", "axhelm", "--elements", "2,2,2", "--repeats", "0"}, 2, "--repeats"},
    // FEM: NaN assembled by every variant, CG run to its limit.
    {{"fem", "assemble", "--box", "2,2,2", "--E", "inf", "--nu", "0.3"}, 2, "--E inf"},
    {{"fem", "assemble", "--box", "2,2,2", "--E", "nan", "--nu", "0.3"}, 2, "--E nan"},
    {{"fem", "assemble", "--box", "2,2,2", "--E", "-1", "--nu", "0.3"}, 2, "--E -1"},
    {{"fem", "assemble", "--box", "2,2,2", "--E", "1e9", "--nu", "0.5"}, 2, "--nu 0.5"},
    {{"fem", "assemble", "--box", "2,2,2", "--E", "1e9", "--nu", "0.3", "--body-force", "0,0,inf"},
     2,
     "--body-force"},
    {{"fem", "assemble", "--box", "2,2,2", "--E", "1e9", "--nu", "0.3", "--variant", "nope"},
     2,
     "unknown variant 'nope'"},
    {{"fem", "cantilever", "--tolerance", "-1"}, 2, "--tolerance -1"},
    {{"fem", "cantilever", "--tolerance", "nan"}, 2, "--tolerance nan"},
    {{"fem", "cantilever", "--tolerance", "2"}, 2, "--tolerance 2"},
    {{"fem", "cantilever", "--E", "inf"}, 2, "--E inf"},
    {{"fem", "cantilever", "--nu", "-1"}, 2, "--nu -1"},
    {{"fem", "cantilever", "--load", "nan"}, 2, "--load nan"},
    {{"fem", "cantilever", "--max-iterations", "0"}, 2, "--max-iterations"},
    {{"fem", "assemble", "--mesh", "a.msh", "--box", "2,2,2", "--E", "1", "--nu", "0.3"},
     2,
     "exactly one of --mesh and --box"},
    // compare, list and the parser.
    {{"compare", "--variants", "nothing*"}, 4, "no registered variant matches"},
    {{"compare", "--workloads", "nope"}, 2, "unknown workload 'nope'"},
    {{"list", "--workload", "nope"}, 2, "names no workload"},
    {{"frobnicate"}, 2, "A subcommand is required"},
    {{}, 2, "A subcommand is required"},
    {{"fem", "cantilever", "--tolerance"}, 2, "--tolerance"},
    {{"fdtd", "cavity", "--steps", "ten"}, 2, "ten"},
    // Outputs checked before any work (output_path.hpp): the OS reason named.
    {{"compare", "--out", "/proc/x"}, 2, "--out '/proc/x': cannot create directory '/proc/x'"},
    {{"compare", "--json", "/proc/x.json"}, 2, "cannot create files in '/proc'"},
    {{"compare", "--merge", "a.json", "--out", "/proc/x"}, 2, "--out '/proc/x'"},
    {{"fem", "cantilever", "--vtu", "/proc/x/beam.vtu"},
     2,
     "--vtu '/proc/x/beam.vtu': cannot create directory '/proc/x': No such file or directory"},
    {{"fem", "assemble", "--box", "2,2,2", "--export-mtx", "/tmp"}, 2, "Is a directory"},
    {{"fem", "assemble", "--box", "2,2,2", "--export-rhs", "/dev/null/f.mtx"},
     2,
     "'/dev/null': Not a directory"},
    {{"fdtd", "cavity", "--probes", "/proc/p.csv"}, 2, "--probes '/proc/p.csv'"},
    {{"fdtd", "cavity", "--snapshots", "ez:z:5:10:/proc/x/ez"}, 2, "--snapshots '/proc/x/ez"},
    {{"fdtd", "cavity", "--checkpoint", "/proc/c.h5", "--checkpoint-every", "10"},
     2,
     "--checkpoint '/proc/c.h5'"},
    {{"fdtd", "dipole", "--far-field", "/proc/ff.csv"}, 2, "--far-field '/proc/ff.csv'"},
    {{"fdtd", "halfspace", "--eps-r", "50", "--sigma", "1", "--rho", "1000", "--freq", "9e8",
      "--sar-profile", kProfile, "--sar-png", "/proc/x.png"},
     2,
     "--sar-png '/proc/x.png'"},
    {{"sph", "dambreak", "--dp", "0.04", "--t-end", "1", "--vtk", "/proc/v"}, 2, "--vtk '/proc/v'"},
    {{"sph", "dambreak", "--dp", "0.04", "--t-end", "1", "--probes", "/proc/p.csv"},
     2,
     "--probes '/proc/p.csv'"},
    {{"sph", "step-history", "--dp", "0.04", "--csv", "/proc/h.csv"}, 2, "--csv '/proc/h.csv'"},
    // One set of conventions: --variant globs everywhere, inputs checked.
    {{"sph", "dambreak", "--dp", "0.04", "--t-end", "1", "--variant", "nothing*"},
     2,
     "no variant of sph.step matches 'nothing*'"},
    {{"fdtd", "cavity", "--variant", "nothing*"}, 2, "no variant of fdtd.step matches"},
    {{"fem", "cantilever", "--variant", "nope"}, 2, "unknown variant 'nope' of fem.assemble"},
    {{"fdtd", "dipole", "--cells", "10"}, 2, "leaves no cell for a probe inside its 10-cell CPML"},
    {{"fdtd", "dipole", "--far-field", kProfile, "--far-field-frequency", "-1"},
     2,
     "--far-field-frequency -1 is not a frequency"},
    {{"fdtd", "dipole", "--far-field", kProfile, "--far-field-frequency", "1e15"},
     2,
     "above the Nyquist frequency"},
    {{"fdtd", "dipole", "--far-field-frequency", "1e9"}, 2, "without --far-field"},
    {{"sem", "nekbone", "--elements", "2,2,2", "--tol", "nan"}, 2, "--tol nan"},
    {{"sem", "axhelm", "--elements", "2,2,2", "--lambda0", "nan"}, 2, "--lambda0 nan"},
    {{"fem", "assemble", "--box", "100000,100000,100000"}, 2, "GiB on host, which has"},
    {{"fem", "cantilever", "--elements", "100000,10000,10000"}, 2, "GiB on host, which has"},
    {{"fem", "assemble", "--box", "2,2,2", "--perturb", "nan"}, 2, "--perturb nan"},
    {{"compare", "--repeats", "-1"}, 2, "--repeats -1"},
};

TEST(Cli, BadInputsAreRefusedUpFrontWithTheirExitCode) {
  for (const auto& c : kBadInputs) {
    SCOPED_TRACE("ppkit " + joined(c.args));
    const Outcome o = run_cli(c.args);
    EXPECT_EQ(o.rc, c.rc) << o.output;
    EXPECT_NE(o.output.find(c.message), std::string::npos) << o.output;
    EXPECT_LT(o.seconds, 1.0) << o.output;
  }
  EXPECT_GE(kBadInputs.size(), 40u);
}

// Mesh files with a negative node tag or binary bytes: refused at the node,
// and the message carries the bytes (as \xNN) instead of ending at a NUL.
TEST(Cli, MeshFileErrorsNameTheNodeAndQuoteBinaryBytes) {
  const fs::path dir = fs::temp_directory_path() / ("ppkit_cli_mesh_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string negative = (dir / "negative.msh").string();
  const std::string binary = (dir / "binary.msh").string();
  std::ofstream(negative) << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2 1 2\n3 1 0 "
                             "2\n-1\n5\n0 0 0\n1 0 0\n$EndNodes\n";
  static const char kBinary[] = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n\x00\x01z\n";
  std::ofstream(binary, std::ios::binary) << std::string(kBinary, sizeof kBinary - 1);
  const Outcome n = run_cli({"fem", "assemble", "--mesh", negative});
  EXPECT_EQ(n.rc, 2) << n.output;
  EXPECT_NE(n.output.find("line 7: node tag -1 is not positive"), std::string::npos) << n.output;
  const Outcome b = run_cli({"fem", "cantilever", "--mesh", binary});
  EXPECT_EQ(b.rc, 2) << b.output;
  EXPECT_NE(b.output.find("got '\\x00\\x01z' (valid: an integer)"), std::string::npos) << b.output;
  // A JSON case's outputs are checked before its run.
  const std::string case_file = (dir / "case.json").string();
  std::ofstream(case_file) << R"({"grid": {"cells": [8, 8, 8], "size": [0.008, 0.008, 0.008]},
    "steps": 10, "outputs": {"energy": "/proc/e.csv"}})";
  const Outcome c = run_cli({"fdtd", "run", "--case", case_file});
  EXPECT_EQ(c.rc, 2) << c.output;
  EXPECT_NE(c.output.find("outputs.energy '/proc/e.csv'"), std::string::npos) << c.output;
  EXPECT_LT(c.seconds, 1.0);
  fs::remove_all(dir);
}

// Rows of every command carry the status words of `ppkit compare`, and long
// runs print a progress line (rate, ETA) when asked with --progress; without
// it, into a file, they print none.
TEST(Cli, StatusWordsAndProgressLines) {
  const Outcome fem = run_cli({"fem", "assemble", "--box", "2,2,2", "--variant", "kokkos-*"});
  EXPECT_EQ(fem.rc, 0) << fem.output;
  EXPECT_NE(fem.output.find("  PASS"), std::string::npos) << fem.output;
  struct Run {
    std::vector<std::string> args;
    std::string progress;  // a part of the progress line
  };
  const std::vector<Run> runs = {
      {{"fdtd", "cavity", "--cells", "8,8,8", "--steps", "20", "--variant", "kokkos-serial/*"},
       "/20 steps"},
      {{"fem", "cantilever", "--elements", "4,1,1"}, "CG iteration"},
      {{"sem", "axhelm", "--elements", "2,2,2", "--variant", "kokkos-*", "--repeats", "1"}, "[1/"},
      {{"compare", "--quick", "--workloads", "sem", "--variants", "kokkos-serial/stored",
        "--repeats", "1", "--no-plots"},
       "[1/"},
  };
  for (const auto& r : runs) {
    SCOPED_TRACE("ppkit " + joined(r.args));
    const Outcome quiet = run_cli(r.args);
    EXPECT_EQ(quiet.rc, 0) << quiet.output;
    EXPECT_NE(quiet.output.find("PASS"), std::string::npos) << quiet.output;
    EXPECT_EQ(quiet.output.find("ETA"), std::string::npos) << quiet.output;
    auto with = r.args;
    with.push_back("--progress");
    const Outcome shown = run_cli(with);
    EXPECT_EQ(shown.rc, 0) << shown.output;
    EXPECT_NE(shown.output.find(r.progress), std::string::npos) << shown.output;
    EXPECT_NE(shown.output.find("ETA"), std::string::npos) << shown.output;
  }
}

// The SEM case the issue found ending in std::bad_alloc after 5.5 s needs about
// 307 GiB: refused where the host has less free (every usual machine).
TEST(Cli, SemCaseLargerThanHostMemoryIsRefusedBeforeAllocation) {
  if (ppkit::memory::host_memory().free_bytes > 300.0 * (1ull << 30))
    GTEST_SKIP() << "this host has more than 300 GiB free";
  const Outcome o = run_cli({"sem", "axhelm", "--elements", "200,200,200"});
  EXPECT_EQ(o.rc, 2) << o.output;
  EXPECT_NE(o.output.find("200x200x200 elements of order 7"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("GiB on host"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("bad_alloc"), std::string::npos) << o.output;
  EXPECT_LT(o.seconds, 1.0);
}

// A variant named alone that cannot run here: exit 4, not 0 with a skipped row.
template <class Op>
const ppkit::Variant<Op>* unavailable_variant() {
  for (const auto& v : ppkit::Registry<Op>::all())
    if (!v.availability().available) return &v;
  return nullptr;
}

TEST(Cli, OnlySelectedVariantThatCannotRunExitsFour) {
  const auto* fem = unavailable_variant<ppkit::fem::FemAssemble>();
  const auto* sem = unavailable_variant<ppkit::sem::SemAxhelm>();
  const auto* fdtd = unavailable_variant<ppkit::FdtdStep>();
  if (!fem && !sem && !fdtd) GTEST_SKIP() << "every variant of this build can run here";
  std::vector<BadInput> cases;
  if (fem)
    cases.push_back(
        {{"fem", "assemble", "--box", "2,2,2", "--E", "1e9", "--nu", "0.3", "--variant", fem->name},
         4,
         "cannot run here"});
  if (sem)
    cases.push_back(
        {{"sem", "axhelm", "--elements", "2,2,2", "--variant", sem->name}, 4, "cannot run here"});
  if (fdtd)
    cases.push_back(
        {{"fdtd", "cavity", "--steps", "10", "--variant", fdtd->name}, 4, "cannot run here"});
  for (const auto& c : cases) {
    SCOPED_TRACE("ppkit " + joined(c.args));
    const Outcome o = run_cli(c.args);
    EXPECT_EQ(o.rc, c.rc) << o.output;
    EXPECT_NE(o.output.find(c.message), std::string::npos) << o.output;
    EXPECT_LT(o.seconds, 1.0) << o.output;
  }
}

// The same commands with a variant that can run here still run (exit 0).
TEST(Cli, ExplicitVariantThatCanRunHereRuns) {
  const std::string csv = (fs::temp_directory_path() / "ppkit_cli_history.csv").string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"sph", "dambreak", "--dp", "0.06", "--t-end", "0.001", "--variant",
                                 "kokkos-serial/symplectic", "--quiet"},
        std::vector<std::string>{"sph", "step-history", "--dp", "0.06", "--steps", "2", "--csv",
                                 csv, "--variant", "kokkos-serial/symplectic"},
        std::vector<std::string>{"fdtd", "cavity", "--cells", "8,8,8", "--steps", "20", "--variant",
                                 "kokkos-serial/plain", "--max-steps", "20"},
        std::vector<std::string>{"fem", "assemble", "--box", "2,2,2", "--E", "1e9", "--nu", "0.3",
                                 "--variant", "kokkos-serial/team-4tpr"}}) {
    SCOPED_TRACE("ppkit " + joined(args));
    const Outcome o = run_cli(args);
    EXPECT_EQ(o.rc, 0) << o.output;
  }
  fs::remove(csv);
}

TEST(Cli, VersionAndHelpDocumentExitCodes) {
  const Outcome v = run_cli({"--version"});
  EXPECT_EQ(v.rc, 0);
  EXPECT_NE(v.output.find(std::string("ppkit ") + ppkit::version_string()), std::string::npos)
      << v.output;
  const Outcome h = run_cli({"--help"});
  EXPECT_EQ(h.rc, 0);
  for (const char* code :
       {"0 ok", "1 verification failed", "2 bad input", "3 runtime failure", "4 nothing could run"})
    EXPECT_NE(h.output.find(code), std::string::npos) << code << "\n" << h.output;
}

// `ppkit list --json` names every registered variant of sem.axhelm and
// sem.nekbone with the backend, strategy and availability the registry gives.
TEST(Cli, ListMatchesTheRegistries) {
  const Outcome o = run_cli({"list", "--workload", "sem", "--json"});
  ASSERT_EQ(o.rc, 0) << o.output;
  const auto j = nlohmann::json::parse(o.output);
  std::set<std::string> listed;
  for (const auto& row : j) {
    EXPECT_EQ(row["workload"], "sem");
    listed.insert(row["operation"].get<std::string>() + " " + row["variant"].get<std::string>());
  }
  std::size_t expected = 0;
  auto check = [&](const auto& variants, const std::string& op) {
    for (const auto& v : variants) {
      ++expected;
      EXPECT_TRUE(listed.count(op + " " + v.name)) << op << " " << v.name;
      for (const auto& row : j)
        if (row["operation"] == op && row["variant"] == v.name) {
          EXPECT_EQ(row["backend"], v.backend);
          EXPECT_EQ(row["strategy"], v.strategy);
          EXPECT_EQ(row["available"].get<bool>(), v.availability().available);
        }
    }
  };
  check(ppkit::Registry<ppkit::sem::SemAxhelm>::all(), "sem.axhelm");
  check(ppkit::Registry<ppkit::sem::SemNekbone>::all(), "sem.nekbone");
  EXPECT_EQ(j.size(), expected);
  EXPECT_GT(expected, 0u);
  const Outcome table = run_cli({"list"});
  EXPECT_EQ(table.rc, 0);
  EXPECT_NE(table.output.find("fdtd.step"), std::string::npos);
  EXPECT_NE(table.output.find("fem.assemble"), std::string::npos);
}

}  // namespace
