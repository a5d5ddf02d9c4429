// A PEC cavity run through ppkit's fdtd.step: build the problem, pick the
// preferred available variant, run, and compare the box's lowest resonance
// on the Yee grid with the continuum value.
#include <cstdio>

#include "ppkit/core/runtime.hpp"
#include "ppkit/fdtd/cases.hpp"

int main() {
  ppkit::Runtime runtime;
  const std::array<double, 3> size{0.1, 0.07, 0.045};
  auto problem = ppkit::fdtd::make_cavity_problem(size, {40, 28, 18}, 1000);
  problem.energy_interval = 250;
  const auto& variant = ppkit::Registry<ppkit::FdtdStep>::find("auto");
  auto run = variant.prepare(problem);
  run->run();
  const auto result = run->result();
  std::printf("%s on %s\n", variant.name.c_str(), variant.device().c_str());
  for (std::size_t n = 0; n < result.energy.size(); ++n)
    std::printf("energy after step %lld: %.6e J\n",
                static_cast<long long>(result.energy_steps[n] + 1), result.energy[n]);
  std::printf("TM110: continuum %.6e Hz, Yee grid %.6e Hz\n",
              ppkit::fdtd::cavity_frequency_continuum(size, {1, 1, 0}),
              ppkit::fdtd::cavity_frequency_yee(problem.grid, {1, 1, 0}));
  return 0;
}
