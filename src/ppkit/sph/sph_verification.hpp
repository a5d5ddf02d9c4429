#pragma once
// How `ppkit compare --workloads sph` and the SPH benchmarks verify a result
// and count its compulsory bytes (compare_sph.cpp). The checks keep a
// reference to the problem, which must outlive them.
#include <cstddef>

#include "ppkit/core/compare.hpp"
#include "ppkit/sph/operations.hpp"

namespace ppkit::sph {

// sph.interaction, relative L2 error of drho/dt and of the interaction part
// of the acceleration (gravity removed), <= 2e-4:
//  - full_reference: against the serial double-precision reference at every
//    particle (counted_pairs, if given, receives the interacting pairs it
//    evaluated);
//  - otherwise (where that reference is minutes of host time): against the
//    serial reference at 4096 seeded random particles and against the most
//    preferred available Kokkos variant on the same device (KokkosBaseline).
CaseVerification<Interaction> interaction_verification(const Interaction::Problem& problem,
                                                       bool full_reference,
                                                       std::size_t* counted_pairs = nullptr);

// sph.step, the largest displacement difference in units of dp or the
// relative velocity error, <= 1e-3:
//  - full_reference: against the serial reference integrator over the same steps;
//  - otherwise: particle conservation, fixed walls and a finite state, and the
//    most preferred available Kokkos variant on the same device.
CaseVerification<Step> step_verification(const Step::Problem& problem, bool full_reference);

// Compulsory DRAM bytes of one interaction: each particle's state read once
// (x, y, z, vx, vy, vz, rho and the 1-byte kind: 29 B) and its results written
// once (drho, ax, ay, az: 16 B). The cell lists and any renumbering are
// derived data, not counted: a lower bound for every variant.
double interaction_bytes(const Interaction::Problem& problem);

}  // namespace ppkit::sph
