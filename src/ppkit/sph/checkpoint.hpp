#pragma once
// Checkpoints of an SPH run: HDF5 files of kind "sph" (ppkit/core/checkpoint.hpp)
// with attributes time, step, dp, h and datasets x y z vx vy vz rho (float32),
// kind (uint8), id (int32), in the solver's internal particle order (a restart
// repeats the run to the last bit). Written to "<file>.tmp" and renamed, so a
// killed run leaves the previous checkpoint intact; checksummed.
#include <cstdint>
#include <string>

#include "ppkit/core/checkpoint.hpp"
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

// The particle datasets (x y z vx vy vz rho kind id) of a checkpoint, shared
// by the one-device and the MPI checkpoints (mpi_slabs.hpp: one per rank).
void put_particles(checkpoint::Content& out, const Particles& s);
// Throws ppkit::Error naming `path` when the arrays differ in length.
Particles get_particles(const checkpoint::Content& in, const std::string& path);

}  // namespace ppkit::sph
