#pragma once
// Subcommands of `ppkit`: each *_command.cpp defines one registrar:
//   static ppkit::cli::CommandRegistrar fem{"fem", add_fem_command};
#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ppkit/core/compare.hpp"
#include "ppkit/core/error.hpp"
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

// The variants of Op a --variant value selects, in registry order (docs/cli.md,
// "Variants"): "all" every registered one, "auto" the preferred one that can
// run here, else comma-separated names or globs (* and ?). A name or glob
// that selects nothing is bad input (ppkit::Error listing the names); a
// selection none of whose variants can run here is NothingRan with their
// reasons. Selected variants that cannot run stay in the list (rows SKIP).
template <class Op>
std::vector<const Variant<Op>*> select_variants(const std::string& request) {
  const auto& all = Registry<Op>::all();
  auto reasons = [&](const std::vector<const Variant<Op>*>& chosen) {
    std::string text;
    for (const auto* v : chosen)
      text += (text.empty() ? "" : "; ") + v->name + ": " + v->availability().reason;
    return text;
  };
  if (request == "auto") {
    const Variant<Op>* best = nullptr;
    std::vector<const Variant<Op>*> every;
    for (const auto& v : all) {
      every.push_back(&v);
      if (v.availability().available && (!best || best->preference < v.preference)) best = &v;
    }
    if (!best)
      throw NothingRan(std::string("no variant of ") + Op::name + " can run here (" +
                       reasons(every) + ")");
    return {best};
  }
  std::vector<const Variant<Op>*> chosen;
  std::size_t start = 0;
  while (start <= request.size()) {
    const std::size_t end = std::min(request.find(',', start), request.size());
    const std::string item = request.substr(start, end - start);
    start = end + 1;
    const std::string glob = item == "all" ? "*" : item;
    bool matched = false;
    for (const auto& v : all)
      if (glob_match(glob, v.name)) {
        matched = true;
        if (std::find(chosen.begin(), chosen.end(), &v) == chosen.end()) chosen.push_back(&v);
      }
    if (matched) continue;
    const bool is_glob = item.find_first_of("*?") != std::string::npos;
    throw Error(is_glob ? "no variant of " + std::string(Op::name) + " matches '" + item + "'"
                        : "unknown variant '" + item + "' of " + Op::name,
                "all, auto, " + Registry<Op>::joined_names() + " or a glob of them");
  }
  if (std::none_of(chosen.begin(), chosen.end(),
                   [](const auto* v) { return v->availability().available; })) {
    const std::string can = Registry<Op>::joined_names(true);
    const std::string tail = " (can run here: " + (can.empty() ? std::string("none") : can) + ")";
    if (chosen.size() == 1)
      throw NothingRan("variant '" + chosen[0]->name + "' of " + Op::name +
                       " cannot run here: " + chosen[0]->availability().reason + tail);
    throw NothingRan("none of the " + std::to_string(chosen.size()) + " selected variants of " +
                     Op::name + " can run here (" + reasons(chosen) + ")" + tail);
  }
  return chosen;
}

// The help text of every --variant option.
inline std::string variant_help(const std::string& operation) {
  return "Variant of " + operation +
         ": auto (the preferred one that can run here), all, a name or a glob such as "
         "'kokkos-*' (comma-separated; `ppkit list` names them)";
}

// Status words of every row of every command (as `ppkit compare`'s):
// PASS verified, FAIL differs from its reference, SKIP cannot run here (the
// reason follows), ERROR the variant failed while running.
inline std::string status_text(const std::string& status, const std::string& detail) {
  return detail.empty() ? status : status + ": " + detail;
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
