#pragma once
// Serial host reference of the WCSPH right-hand side and time step, written
// for clarity in double precision (independent of the fp32 kernels in
// sph_pair.hpp; the equations are listed there and in docs/sph.md).
#include "ppkit/sph/operations.hpp"

namespace ppkit::sph::reference {

// Wendland C2 kernel (Wendland 1995) in 3D, support 2h: value and dW/dr.
double wendland(double r, double h);
double wendland_derivative(double r, double h);

// Right-hand side with a simple bucket cell list (cells of size 2h).
// `pairs`, when given, receives the number of interacting ordered pairs (i, j)
// with |r_ij| < 2h (fluid-fluid, fluid-boundary and boundary-fluid).
Interaction::Result interaction(const Parameters& p, const Particles& particles,
                                std::size_t* pairs = nullptr);
// The same by visiting all pairs, O(N^2): checks the cell-list reference.
Interaction::Result interaction_all_pairs(const Parameters& p, const Particles& particles);

// The same right-hand side at the given particles only (entry k belongs to
// particles[indices[k]]): a serial check of a sample where the full reference
// is too slow (`ppkit compare --large`).
Interaction::Result interaction_at(const Parameters& p, const Particles& particles,
                                   const std::vector<std::size_t>& indices);

// Estimated number of interacting ordered pairs (|r_ij| < 2h, not both
// boundary) from `samples` seeded random particles: for benchmark models at
// sizes where the full reference is too slow.
double estimate_interacting_pairs(const Parameters& p, const Particles& particles, int samples,
                                  unsigned seed);

// Symplectic time step (Leimkuhler et al. 1996 as in DualSPHysics, Dominguez et
// al. 2022 Section 2.6) with variable dt (Monaghan & Kos 1999): returns dt.
// Escaped fluid particles are marked kEscaped.
double step(const Parameters& p, Particles& particles);

// Time step limit from the state's right-hand side: CFL * min(force, viscous/acoustic).
double time_step(const Parameters& p, const Particles& particles, const Interaction::Result& rhs,
                 double visc_max);

}  // namespace ppkit::sph::reference
