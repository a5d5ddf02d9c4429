// SPH benchmarks on the SPHERIC test 2 dam break at 1, 4 and 16 M particles
// (PPKIT_SPH_BENCH_PARTICLES="1e6,4e6,16e6" overrides; use small counts on a CPU):
//  - sph_interaction/<N>: interactions/s (ordered pairs with r < 2h, estimated
//    from 20000 sampled particles); bytes = 45 per particle, the compulsory
//    traffic (interaction_bytes: 29 B of state read once, 16 B of results
//    written once), flops = 60 per pair (sph_pair.hpp);
//  - sph_step/<N>/reorder-{every-step,never}: 10 symplectic steps per run
//    (2 interactions each); particle-steps/s (ns/particle/step = 1e9 / it).
// Each variant's result is verified before it is timed, by `ppkit compare`'s
// checks (sph_verification.hpp): the serial reference up to 1.5 M particles
// (interaction) or 1e7 particle-steps (steps), the sampled and conservation
// checks and the Kokkos baseline above.
// Step time versus step number: `ppkit sph step-history` (docs/sph.md).
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "harness/bench_harness.hpp"
#include "ppkit/sph/cases.hpp"
#include "ppkit/sph/operations.hpp"
#include "ppkit/sph/reference.hpp"
#include "ppkit/sph/sph_verification.hpp"

namespace {
using namespace ppkit::sph;

std::vector<double> particle_counts() {
  const char* env = std::getenv("PPKIT_SPH_BENCH_PARTICLES");
  std::istringstream in(env ? env : "1e6,4e6,16e6");
  std::vector<double> out;
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(std::stod(item));
  return out;
}

std::string label(double n) {
  std::ostringstream o;
  if (n >= 1e6)
    o << n / 1e6 << "M";
  else
    o << n / 1e3 << "k";
  return o.str();
}

Case dambreak(double particles) {
  CaseOptions o;
  o.dp = dambreak_dp_for_particles(particles);
  Case c = make_spheric_dambreak(o);
  perturb(c, 0.5, 11u);
  return c;
}
}  // namespace

void ppkit::bench::register_benchmarks() {
  for (double n : particle_counts()) {
    register_variant_benchmarks<Interaction>(
        "sph_interaction/" + label(n),
        [n] {
          const Case c = dambreak(n);
          return Interaction::Problem{c.params, c.particles};
        },
        [](const Interaction::Problem& p) {
          const double pairs =
              reference::estimate_interacting_pairs(p.params, p.particles, 20000, 5u);
          return BenchModel{pairs, "interactions/s", interaction_bytes(p), 60.0 * pairs};
        },
        [](const Interaction::Problem& p) {
          return interaction_verification(p, double(p.particles.size()) <= 1.5e6);
        });
    for (int every : {1, 0}) {
      register_variant_benchmarks<Step>(
          "sph_step/" + label(n) + (every ? "/reorder-every-step" : "/reorder-never"),
          [n, every] {
            const Case c = dambreak(n);
            return Step::Problem{c.params, c.particles, 10, ReorderPolicy{every}};
          },
          [](const Step::Problem& p) {
            return BenchModel{double(p.particles.size()) * p.steps, "particle-steps/s",
                              std::nan(""), std::nan("")};
          },
          [](const Step::Problem& p) {
            return step_verification(p, double(p.particles.size()) * p.steps <= 1e7);
          });
    }
  }
}
