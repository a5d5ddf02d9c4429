// `ppkit list [--workload W] [--json]`: every registered variant of every
// operation, with its backend and strategy, and whether it can run here (and
// why not), from the registries themselves.
#include <fmt/format.h>

#include <iostream>
#include <variant>
#include <nlohmann/json.hpp>

#include "ppkit/command.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/runtime.hpp"
#include "ppkit/core/stream_copy.hpp"
#include "ppkit/core/variant_choice.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/phasors.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/nekbone.hpp"
#include "ppkit/sph/operations.hpp"

namespace {

struct Listed {
  std::string workload, operation;
  ppkit::VariantStatus status;
};

template <class Op>
void add_op(std::vector<Listed>& out, const std::string& workload) {
  for (auto& s : ppkit::variant_statuses<Op>()) out.push_back({workload, Op::name, std::move(s)});
}

std::vector<Listed> all_variants() {
  std::vector<Listed> out;
  add_op<ppkit::fem::FemAssemble>(out, "fem");
  add_op<ppkit::sph::Step>(out, "sph");
  add_op<ppkit::sph::Interaction>(out, "sph");
  add_op<ppkit::sem::SemAxhelm>(out, "sem");
  add_op<ppkit::sem::SemNekbone>(out, "sem");
  add_op<ppkit::FdtdStep>(out, "fdtd");
  add_op<ppkit::FdtdPhasorUpdate>(out, "fdtd");
  add_op<ppkit::StreamCopy>(out, "core");
  return out;
}

// The variant's typed traits (variant_traits.hpp): the common ones, then its
// operation's (Op::Traits) under "operation".
nlohmann::json traits_json(const ppkit::VariantStatus& s) {
  auto op = nlohmann::json::object();
  for (const auto& [key, value] : s.traits)
    std::visit([&op, &key = key](const auto& v) { op[key] = v; }, value);
  return {{"model", ppkit::to_string(s.model)},
          {"memory", ppkit::memory_name(s.memory)},
          {"role", ppkit::to_string(s.role)},
          {"auto", {{"tier", ppkit::to_string(s.preference.tier)}, {"rank", s.preference.rank}}},
          {"operation", op}};
}

void run_list(const std::string& workload, bool json) {
  ppkit::Runtime runtime;
  std::vector<Listed> rows;
  std::string known;
  for (auto& v : all_variants()) {
    if (known.find(v.workload) == std::string::npos)
      known += (known.empty() ? "" : ", ") + v.workload;
    if (workload.empty() || v.workload == workload || v.operation == workload)
      rows.push_back(std::move(v));
  }
  if (rows.empty())
    throw ppkit::Error("--workload '" + workload + "' names no workload or operation",
                       known + ", or an operation such as sem.axhelm");
  if (json) {
    auto j = nlohmann::json::array();
    for (const auto& r : rows)
      j.push_back({{"workload", r.workload},
                   {"operation", r.operation},
                   {"variant", r.status.name},
                   {"backend", r.status.backend},
                   {"strategy", r.status.strategy},
                   // "auto" takes the available variant with the highest
                   {"preference", ppkit::auto_order(r.status.preference)},
                   {"available", r.status.available},
                   {"reason", r.status.reason},
                   {"traits", traits_json(r.status)}});
    std::cout << j.dump(2) << "\n";
    return;
  }
  fmt::print("{:<20} {:<36} {:<16} {:<22} {}\n", "operation", "variant", "backend", "strategy",
             "runs here");
  int available = 0;
  for (const auto& r : rows) {
    available += r.status.available ? 1 : 0;
    fmt::print("{:<20} {:<36} {:<16} {:<22} {}\n", r.operation, r.status.name, r.status.backend,
               r.status.strategy, r.status.available ? "yes" : "no: " + r.status.reason);
  }
  fmt::print("{} variants, {} can run here\n", rows.size(), available);
}

void add_list_command(CLI::App& app) {
  auto workload = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "list", "List every registered variant: backend, strategy, whether it can run here");
  cmd->add_option("--workload", *workload,
                  "Only this workload (fem, sph, sem, fdtd, core) or operation (sem.axhelm)");
  cmd->add_flag("--json", *json, "Print JSON instead of a table");
  cmd->callback([workload, json] { run_list(*workload, *json); });
}

ppkit::cli::CommandRegistrar registrar{"list", add_list_command};
}  // namespace

std::vector<std::string> ppkit::cli::registered_variant_names() {
  std::vector<std::string> out;
  for (const auto& v : all_variants()) out.push_back(v.status.name);
  return out;
}
