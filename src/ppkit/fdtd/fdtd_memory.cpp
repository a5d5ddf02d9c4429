// Device bytes of an fdtd.step problem for the memory check before allocation
// (ppkit/core/memory_check.hpp): a lower bound, the arrays every variant holds
// on the device: six fields (float, double for fp64) and the uint32 material id per node, the 12
// CPML psi arrays of the layers, and per step the source values and probe values.
#include <algorithm>

#include "ppkit/core/memory_check.hpp"
#include "ppkit/fdtd/fdtd_run.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"

namespace ppkit::fdtd {

double device_bytes(const FdtdStep::Problem& p) {
  const YeeGrid& g = p.grid;
  const double nodes = double(g.nx + 1) * double(g.ny + 1) * double(g.nz + 1);
  const double layers = 2.0 * std::max(0, p.cpml.thickness);
  const double psi = 4 * layers *
                     (double(g.ny + 1) * double(g.nz + 1) + double(g.nx + 1) * double(g.nz + 1) +
                      double(g.nx + 1) * double(g.ny + 1));
  const double per_step = double(p.sources.size() + p.probes.size());
  const double value = p.precision == Precision::fp64 ? sizeof(double) : sizeof(float);
  return nodes * (6 * value + sizeof(std::uint32_t)) + psi * value +
         per_step * double(std::max<std::int64_t>(0, p.steps)) * value;
}

}  // namespace ppkit::fdtd

namespace ppkit::registration {
void register_fdtd_memory_model() { memory::set_bytes_model<FdtdStep>(fdtd::device_bytes); }
}  // namespace ppkit::registration
