#pragma once
// Subcommands of `ppkit`: each *_command.cpp defines one registrar:
//   static ppkit::cli::CommandRegistrar fem{"fem", add_fem_command};
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace ppkit::cli {

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
