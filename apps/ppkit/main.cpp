// `ppkit`: info, list, compare and one subcommand per workload. Exit codes
// (docs/cli.md): 0 ok, 1 verification failed, 2 bad input (one line
// "ppkit: error: ..."), 3 runtime failure, 4 nothing could run.
#include <algorithm>
#include <cstdio>
#include <new>

#include "ppkit/command.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/info.hpp"
#include "ppkit/core/runtime.hpp"

int main(int argc, char** argv) {
  using namespace ppkit::cli;
  CLI::App app{
      "ppkit " + std::string(ppkit::version_string()) +
      ": performance-portable FEM, SPH, SEM and FDTD kernels across GPU vendors and backends"};
  app.set_version_flag("--version", std::string("ppkit ") + ppkit::version_string());
  app.footer(
      "Exit codes: 0 ok, 1 verification failed, 2 bad input (refused before any work), "
      "3 runtime failure, 4 nothing could run (no selected variant can run here or none "
      "matched). See docs/cli.md.");
  app.require_subcommand(1);
  auto& cmds = commands();
  std::sort(cmds.begin(), cmds.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const auto& c : cmds) c.add(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // 0 for --help and --version
    return rc == 0 ? kOk : kBadInput;
  } catch (const ppkit::Error& e) {
    std::fprintf(stderr, "ppkit: error: %s\n", e.what());
    return kBadInput;
  } catch (const NothingRan& e) {
    std::fprintf(stderr, "ppkit: error: %s\n", e.what());
    return kNothingRan;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "ppkit: error: out of host memory: an allocation failed (a smaller problem, or "
                 "a machine with more memory)\n");
    return kRuntimeFailure;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ppkit: error: %s\n", e.what());
    return kRuntimeFailure;
  }
  return kOk;
}
