// Variant traits (variant_traits.hpp): what "auto" picks on the CPU, and that
// no source outside the registration points names a variant.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ppkit/core/registry.hpp"
#include "ppkit/core/stream_copy.hpp"
#include "ppkit/core/variant_choice.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/phasors.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/sem/axhelm.hpp"
#include "ppkit/sem/nekbone.hpp"
#include "ppkit/sph/operations.hpp"

namespace {

namespace fs = std::filesystem;

template <class F>
void for_each_operation(F&& f) {
  f(ppkit::Registry<ppkit::StreamCopy>{});
  f(ppkit::Registry<ppkit::fem::FemAssemble>{});
  f(ppkit::Registry<ppkit::FdtdStep>{});
  f(ppkit::Registry<ppkit::FdtdPhasorUpdate>{});
  f(ppkit::Registry<ppkit::sph::Interaction>{});
  f(ppkit::Registry<ppkit::sph::Step>{});
  f(ppkit::Registry<ppkit::sem::SemAxhelm>{});
  f(ppkit::Registry<ppkit::sem::SemNekbone>{});
}

template <class Op>
Op op_of(const ppkit::Registry<Op>&);

// The choices "auto" made before the preferences became typed traits, on the
// CPU builds CI runs (Kokkos Serial, or Serial and OpenMP; OpenCL on PoCL
// when it has a device; CUDA compiled but without a device): the most
// preferred available variant, the one among variants whose data lives in
// host memory, and the one of strategy "plain" where an operation has it.
// With kokkos-openmp, Kokkos spaces that share a rank now go to the higher
// tier (host-parallel); before, the first registered (Serial) won such a tie.
// SPH's OpenCL variants, added later, take the device-portable tier's place
// where OpenCL has a device, as FDTD's do.
TEST(VariantTraits, AutoPicksWhatItPickedBefore) {
  std::set<std::string> available;
  for_each_operation([&](auto registry) {
    for (const auto& v : registry.all())
      if (v.availability().available) available.insert(v.backend);
  });
  for (const auto& backend : available)
    if (backend != "kokkos-serial" && backend != "kokkos-openmp" && backend != "opencl")
      GTEST_SKIP() << "choices recorded for Kokkos Serial, OpenMP and OpenCL; " << backend
                   << " can run here too";
  const bool opencl = available.count("opencl") > 0;
  const std::string host = available.count("kokkos-openmp") ? "kokkos-openmp/" : "kokkos-serial/";
  struct Expected {
    std::string any, host, plain;
  };
  const std::map<std::string, Expected> expected = {
      {"core.stream-copy",
       {opencl ? "opencl/copy-buffer" : host + "deep-copy", host + "deep-copy", ""}},
      {"fem.assemble", {host + "node-gather", host + "node-gather", ""}},
      {"fdtd.step",
       {opencl ? "opencl/float4" : host + "split", host + "split",
        opencl ? "opencl/plain" : host + "plain"}},
      {"fdtd.phasor_update",
       {opencl ? "opencl/float4" : host + "plain", host + "plain",
        opencl ? "opencl/plain" : host + "plain"}},
      {"sph.interaction",
       {opencl ? "opencl/sorted-float4" : host + "sorted-cells", host + "sorted-cells", ""}},
      {"sph.step",
       {opencl ? "opencl/symplectic-float4" : host + "symplectic", host + "symplectic", ""}},
      {"sem.axhelm", {host + "trilinear", host + "trilinear", ""}},
      {"sem.nekbone", {host + "trilinear-assembled", host + "trilinear-assembled", ""}},
  };
  int checked = 0;
  for_each_operation([&](auto registry) {
    using Op = decltype(op_of(registry));
    const auto it = expected.find(Op::name);
    ASSERT_NE(it, expected.end()) << Op::name << " has no recorded choice";
    EXPECT_EQ(registry.find("auto").name, it->second.any) << Op::name;
    EXPECT_EQ(ppkit::choose_variant<Op>("auto", ppkit::MemoryKind::host).name, it->second.host)
        << Op::name;
    if (!it->second.plain.empty()) {
      EXPECT_EQ(ppkit::choose_variant<Op>("plain").name, it->second.plain) << Op::name;
    }
    ++checked;
  });
  EXPECT_EQ(checked, 8);
}

// The factories' common traits: a Kokkos host space's variants keep their
// data in host memory, CUDA's in CUDA memory; OpenCL buffers are addressed
// by no pointer.
TEST(VariantTraits, FactoriesFillTheCommonTraits) {
  for_each_operation([&](auto registry) {
    for (const auto& v : registry.all()) {
      if (v.backend == "kokkos-serial" || v.backend == "kokkos-openmp") {
        EXPECT_EQ(v.model, ppkit::ProgrammingModel::kokkos) << v.name;
        EXPECT_EQ(v.memory, ppkit::MemoryKind::host) << v.name;
        EXPECT_EQ(v.preference.tier, v.backend == "kokkos-serial" ? ppkit::AutoTier::host_serial
                                                                  : ppkit::AutoTier::host_parallel)
            << v.name;
      } else if (v.backend == "opencl") {
        EXPECT_EQ(v.model, ppkit::ProgrammingModel::vendor) << v.name;
        EXPECT_FALSE(v.memory.has_value()) << v.name;
        EXPECT_EQ(v.preference.tier, ppkit::AutoTier::device_portable) << v.name;
      } else if (v.backend == "cuda") {
        EXPECT_EQ(v.model, ppkit::ProgrammingModel::vendor) << v.name;
        EXPECT_EQ(v.memory, ppkit::MemoryKind::cuda) << v.name;
        EXPECT_EQ(v.preference.tier, ppkit::AutoTier::device_native) << v.name;
      }
    }
  });
}

// ---- no variant names outside the registration points -----------------------

// The string literals of a C++ or Python source, comments skipped.
std::vector<std::string> string_literals(const std::string& text, bool python) {
  std::vector<std::string> out;
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (!python && c == '/' && i + 1 < n && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
    } else if (!python && c == '/' && i + 1 < n && text[i + 1] == '*') {
      i = text.find("*/", i + 2);
      if (i == std::string::npos) break;
      i += 2;
    } else if (python && c == '#') {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
    } else if (!python && c == 'R' && i + 1 < n && text[i + 1] == '"') {  // R"d(...)d"
      const std::size_t open = text.find('(', i + 2);
      if (open == std::string::npos) break;
      const std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
      const std::size_t end = text.find(close, open + 1);
      if (end == std::string::npos) break;
      out.push_back(text.substr(open + 1, end - open - 1));
      i = end + close.size();
    } else if (c == '"' || (python && c == '\'')) {
      std::string literal;
      std::size_t j = i + 1;
      while (j < n && text[j] != c && text[j] != '\n') {
        if (text[j] == '\\' && j + 1 < n) ++j;
        literal += text[j++];
      }
      out.push_back(literal);
      i = j + 1;
    } else if (!python && c == '\'') {  // a character literal, e.g. '"'
      std::size_t j = i + 1;
      while (j < n && text[j] != '\'' && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
      i = j + 1;
    } else {
      ++i;
    }
  }
  return out;
}

// A registration point builds Variant<Op>s: it defines a function of
// ppkit::registration (docs/architecture.md), which may name its own variants.
bool is_registration_point(const std::string& text) {
  return text.find("namespace ppkit::registration") != std::string::npos ||
         text.find("namespace registration") != std::string::npos;
}

std::set<std::string> registered_names() {
  std::set<std::string> names;
  for_each_operation([&](auto registry) {
    for (const auto& name : registry.names()) names.insert(name);
  });
  return names;
}

// Every file under the scanned folders that names a registered variant in a
// string literal, with the names, unless the file is a registration point.
std::map<std::string, std::set<std::string>> variant_names_outside_registration(
    const fs::path& root, const std::set<std::string>& names) {
  std::map<std::string, std::set<std::string>> found;
  for (const char* folder : {"src", "apps", "perf", "python/ppkit"}) {
    if (!fs::exists(root / folder)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      if (!entry.is_regular_file()) continue;
      const std::string ext = entry.path().extension().string();
      const bool python = ext == ".py";
      if (!python && ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".cu" &&
          ext != ".cuh" && ext != ".in")
        continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string source = text.str();
      if (is_registration_point(source)) continue;
      for (const auto& literal : string_literals(source, python))
        if (names.count(literal))
          found[fs::relative(entry.path(), root).generic_string()].insert(literal);
    }
  }
  return found;
}

TEST(VariantTraits, LiteralScannerSeesStringsNotComments) {
  const auto cpp = string_literals(
      "// \"kokkos-serial/plain\"\n/* \"cuda/x\" */ auto a = \"cuda/y\"; char q = '\"'; "
      "auto r = R\"(opencl/z)\";",
      false);
  EXPECT_EQ(cpp, (std::vector<std::string>{"cuda/y", "opencl/z"}));
  const auto py = string_literals("# 'cuda/x'\nv = 'cuda/y' + \"hip/z\"\n", true);
  EXPECT_EQ(py, (std::vector<std::string>{"cuda/y", "hip/z"}));
}

// Tests, benchmarks, compare and the CLI read traits (variant_traits.hpp),
// never a variant's name: no source outside the registration points holds
// one as a string literal.
TEST(VariantTraits, NoVariantNameOutsideTheRegistrationPoints) {
  const auto names = registered_names();
  ASSERT_GT(names.size(), 20u);
  const auto found = variant_names_outside_registration(PPKIT_SOURCE_DIR, names);
  for (const auto& [file, literals] : found) {
    std::string list;
    for (const auto& l : literals) list += (list.empty() ? "" : ", ") + l;
    ADD_FAILURE() << file << " names variants " << list
                  << ": read the variant's traits instead (variant_traits.hpp)";
  }
}

}  // namespace
