// libFuzzer target: the FDTD JSON case reader (problem_from_json and the
// "sar" section's case_sar_from_json) on arbitrary bytes. Text that is not JSON is rejected by the
// parser; JSON that is not a valid case must end in ppkit::Error, never in a crash, a leak,
// undefined behaviour or another exception type (nlohmann's type errors included).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "ppkit/core/error.hpp"
#include "ppkit/core/memory_check.hpp"
#include "ppkit/fdtd/cases.hpp"

// The host reports 1 GiB free, below libFuzzer's 2 GB allocation limit: a case
// whose per-node arrays would not fit must be refused by the reader's memory
// check, not allocated.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  static const ppkit::memory::HostMemoryLimit one_gib(1024.0 * 1024 * 1024);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  try {
    const ppkit::FdtdStep::Problem p = ppkit::fdtd::problem_from_json(j, "fuzz.json");
    ppkit::fdtd::validate(p);  // what every variant does first must accept what the reader made
    (void)ppkit::fdtd::case_sar_from_json(j, p, "fuzz.json");
  } catch (const ppkit::Error&) {
  }
  return 0;
}
