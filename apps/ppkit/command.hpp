#pragma once
// Subcommands of `ppkit`: each *_command.cpp defines one registrar:
//   static ppkit::cli::CommandRegistrar fem{"fem", add_fem_command};
#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ppkit/core/registry.hpp"

namespace ppkit::cli {

// Exit codes of every subcommand (docs/cli.md).
enum ExitCode : int {
  kOk = 0,
  kVerificationFailed = 1,  // a result differs from its reference
  kBadInput = 2,            // a user mistake, refused before the work (ppkit::Error)
  kRuntimeFailure = 3,      // the work started and failed (out of memory, a device error)
  kNothingRan = 4,          // no selected variant could run here, or none matched
};

// Thrown when nothing the user selected could run: main() prints the message
// and exits kNothingRan.
struct NothingRan : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Names of every registered variant of every operation (list_command.cpp).
std::vector<std::string> registered_variant_names();

// A variant asked for by name (not "auto") that is registered but cannot run
// here: NothingRan with its reason and the variants that can. Unknown names
// stay bad input (Registry::find throws ppkit::Error).
template <class Op>
void require_runnable(const std::string& name) {
  if (name == "auto") return;
  const auto& v = Registry<Op>::find(name);
  const Availability a = v.availability();
  if (!a.available) {
    const std::string can = Registry<Op>::joined_names(true);
    throw NothingRan("variant '" + v.name + "' of " + Op::name + " cannot run here: " + a.reason +
                     " (can run here: " + (can.empty() ? std::string("none") : can) + ")");
  }
}

struct Command {
  std::string name;
  // Adds the subcommand (options + callback) to the app.
  std::function<void(CLI::App&)> add;
};

inline std::vector<Command>& commands() {
  static std::vector<Command> c;
  return c;
}

struct CommandRegistrar {
  CommandRegistrar(std::string name, std::function<void(CLI::App&)> add) {
    commands().push_back({std::move(name), std::move(add)});
  }
};

}  // namespace ppkit::cli
