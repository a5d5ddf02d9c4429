#pragma once
// How `ppkit compare --workloads fdtd,fdtd-phasors` verifies a result
// (fdtd_compare.cpp, phasor_compare.cpp), shared with the FDTD benchmarks so
// that a benchmark verifies its variant by the same check before timing it.
// Both check against the serial reference (verification.hpp), never against
// another variant. `size` selects the nodes checked: every node at
// ProblemSize::quick; at the larger sizes the sample boxes of
// verification_boxes() (for the step: stepped in their light-cone windows,
// or every node where that is cheaper). The checks own their reference
// values; the problem need not outlive them.
#include "ppkit/core/compare.hpp"
#include "ppkit/fdtd/fdtd_step.hpp"
#include "ppkit/fdtd/phasors.hpp"

namespace ppkit::fdtd {

// fdtd.step: the largest deviation over the checked nodes relative to the
// RMS of its field group (E or H), within sampled_tolerance(precision). The
// row gets "verified_against", "verified_nodes" and, if any, "worst_node".
// Refuses (ppkit::Error) problems sampled_reference() cannot step (plane
// waves, periodic axes).
CaseVerification<FdtdStep> step_verification(const FdtdStep::Problem& problem, ProblemSize size);
// fdtd.phasor_update: the largest deviation of the running sums relative to
// the RMS of the reference sums, within 1e-5; the same row entries.
CaseVerification<FdtdPhasorUpdate> phasor_verification(const FdtdPhasorUpdate::Problem& problem,
                                                       ProblemSize size);

}  // namespace ppkit::fdtd
