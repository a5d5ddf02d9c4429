#pragma once
// How `ppkit compare --workloads fdtd,fdtd-phasors` verifies a result
// (fdtd_compare.cpp, phasor_compare.cpp), shared with the FDTD benchmarks so
// that a benchmark verifies its variant by the same path before timing it.
// `size` selects the compare size's path (the serial reference at --quick,
// the paths of the larger sizes above). The checks keep their references.
#include "ppkit/core/compare.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/phasors.hpp"

namespace ppkit::fdtd {

CaseVerification<FdtdStep> step_verification(const FdtdStep::Problem& problem, ProblemSize size);
CaseVerification<FdtdPhasorUpdate> phasor_verification(const FdtdPhasorUpdate::Problem& problem,
                                                       ProblemSize size);

}  // namespace ppkit::fdtd
