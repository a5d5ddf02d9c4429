// Every input the fuzzers found that once crashed a reader (fuzz/regressions/
// <target>/, each named after what was wrong) and every seed (fuzz/corpus/) is
// read again: the reader must return or throw ppkit::Error, nothing else.
// ASan + UBSan (the host-asan preset) turn a regression into a failure here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ppkit/core/error.hpp"
#include "ppkit/core/memory_check.hpp"
#include "ppkit/fdtd/cases.hpp"
#include "ppkit/fem/gmsh_reader.hpp"

namespace {
namespace fs = std::filesystem;

std::vector<fs::path> inputs(const std::string& target) {
  std::vector<fs::path> out;
  for (const char* kind : {"corpus", "regressions"}) {
    const fs::path dir = fs::path(PPKIT_FUZZ_CORPUS) / kind / target;
    if (!fs::exists(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file()) out.push_back(e.path());
  }
  return out;
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(FuzzRegressions, GmshReaderAcceptsOrRejectsCleanly) {
  const auto files = inputs("gmsh");
  ASSERT_FALSE(files.empty());
  for (const auto& f : files) {
    std::istringstream in(bytes_of(f));
    try {
      const auto mesh = ppkit::fem::read_gmsh(in, f.filename().string());
      for (const auto node : mesh.elements) {
        EXPECT_GE(node, 0) << f;
        EXPECT_LT(node, mesh.num_nodes()) << f;
      }
    } catch (const ppkit::Error&) {
    }
  }
}

TEST(FuzzRegressions, FdtdCaseReaderAcceptsOrRejectsCleanly) {
  // As in the fuzzer: 1 GiB free, so a grid too large for it is refused, not allocated.
  const ppkit::memory::HostMemoryLimit one_gib(1024.0 * 1024 * 1024);
  const auto files = inputs("fdtd_case");
  ASSERT_FALSE(files.empty());
  for (const auto& f : files) {
    const std::string text = bytes_of(f);
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) continue;
    try {
      const auto p = ppkit::fdtd::problem_from_json(j, f.filename().string());
      ppkit::fdtd::validate(p);
    } catch (const ppkit::Error&) {
    }
  }
}

}  // namespace
