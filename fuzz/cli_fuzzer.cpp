// libFuzzer target: the `ppkit` command line, parse only. The input is split at
// NUL bytes and newlines into argv; parsing stops right after CLI11 accepted
// the command line and before any subcommand callback, so no command ever runs (no file is written,
// no device touched). Parse errors (CLI::Error) and ppkit::Error from option checks are expected;
// anything else (a crash, leak, undefined behaviour or a stray std::exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ppkit/command.hpp"
#include "ppkit/core/error.hpp"

namespace {

// Thrown by the top-level parse-complete callback, which CLI11 runs after a
// successful parse and before any subcommand callback: no command ever runs,
// while the callbacks (and the argument structs they keep alive) still exist.
struct ParsedOnly {};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"ppkit"};
  std::string token;
  for (std::size_t i = 0; i < size; ++i) {
    const char c = char(data[i]);
    if (c == '\0' || c == '\n') {
      args.push_back(token);
      token.clear();
    } else {
      token.push_back(c);
    }
  }
  if (!token.empty()) args.push_back(token);
  if (args.size() > 64) return 0;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());

  CLI::App app{"ppkit"};
  app.require_subcommand(1);
  for (const auto& c : ppkit::cli::commands()) c.add(app);
  app.parse_complete_callback([] { throw ParsedOnly{}; });
  try {
    app.parse(int(argv.size()), argv.data());
  } catch (const CLI::Error&) {
  } catch (const ppkit::Error&) {
  } catch (const ParsedOnly&) {
  }
  return 0;
}
