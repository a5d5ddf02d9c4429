// `ppkit`: info, compare and one subcommand per workload. User mistakes print
// one line "ppkit: error: ..." and exit 2; failed verifications exit 1.
#include <algorithm>
#include <cstdio>

#include "ppkit/command.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/info.hpp"
#include "ppkit/core/runtime.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "ppkit " + std::string(ppkit::version_string()) +
      ": performance-portable FEM, SPH, SEM and FDTD kernels across GPU vendors and backends"};
  app.require_subcommand(1);
  auto& cmds = ppkit::cli::commands();
  std::sort(cmds.begin(), cmds.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const auto& c : cmds) c.add(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const ppkit::Error& e) {
    std::fprintf(stderr, "ppkit: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ppkit: error: %s\n", e.what());
    return 3;
  }
  return 0;
}
