#pragma once
// Checkpoints of an SPH run: a small binary format
//   "PPKSPHCK" | u32 version (1) | u32 0 | u64 n | f64 time | i64 step | f64 dp | f64 h |
//   arrays x y z vx vy vz rho (f32 * n), kind (u8 * n), id (i32 * n) |
//   u64 FNV-1a checksum of every byte before it
// in the solver's internal particle order (a restart repeats the run to the
// last bit). Written to "<file>.tmp" and renamed, so a killed run leaves the
// previous checkpoint intact.
#include <cstdint>
#include <string>

#include "ppkit/sph/sph_types.hpp"

namespace ppkit::sph {

struct Checkpoint {
  Particles particles;
  double time = 0;
  std::int64_t step = 0;
  double dp = 0, h = 0;
};

void write_checkpoint(const std::string& path, const Checkpoint& c);
// Throws ppkit::Error on a missing file, wrong magic/version, truncation or checksum mismatch.
Checkpoint read_checkpoint(const std::string& path);

}  // namespace ppkit::sph
