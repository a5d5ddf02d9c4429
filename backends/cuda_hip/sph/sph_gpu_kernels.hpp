#pragma once
// Launchers of the hand-tuned GPU SPH kernels. One kernel source,
// sph_gpu_kernels.cuh, is compiled by nvcc (backends/cuda/sph/sph_cuda_kernels.cu) and by the HIP
// compiler (backends/hip/sph/sph_hip_kernels.hip); the launchers are templates
// over the vendor tag (Cuda, Hip) so that the two sets have distinct symbols.
// They see only plain structs of raw device pointers and the fp32 constants of
// src/ppkit/sph/sph_types.hpp; every launcher is asynchronous on the default
// stream.
//
// float4 comes from the vendor's vector types: include <vector_functions.h>
// (CUDA) or backends/hip/core/hip_check.hpp (HIP runtime API) before this header.
#include <cstddef>
#include <cstdint>

#include "ppkit/sph/sph_types.hpp"

namespace ppkit::sph::gpu_kernels {

// Which compiler built the kernels a launcher starts.
struct Cuda {};
struct Hip {};

// Particle state, cell-sorted after renumber(): pos_rho = (x, y, z, rho),
// vel_kind = (vx, vy, vz, kind as float).
struct ParticleBuffers {
  float4* pos_rho;
  float4* vel_kind;
  int* id;
  int n;
};

// Counting sort by cell: cell (n), cell_count/cell_start (cells + 2),
// cell_fluid (cells + 1), permutation (n), plus the scan's temporary storage
// (scan_temp_bytes()).
struct CellBuffers {
  int* cell;
  int* cell_count;
  int* cell_start;
  int* cell_fluid;
  int* permutation;
  void* scan_temp;
  std::size_t scan_temp_bytes;
};

// Right-hand side: (ax, ay, az, drho) and the viscous time-step term.
struct RhsBuffers {
  float4* acc_drho;
  float* visc;
};

// Bytes of temporary storage the exclusive scan over cells + 2 entries needs.
template <class Vendor>
std::size_t scan_temp_bytes(long long cells);

// Counting sort of particle indices by cell without moving particles:
// cell_start and permutation (sorted slot -> particle) describe the cells.
template <class Vendor>
void bin(const CellGrid& g, const ParticleBuffers& p, const CellBuffers& c);

// Renumbers particles by cell: count per cell (and fluid per cell), exclusive
// scan, scatter, gather `p` into `scratch`; swaps nothing (the caller swaps p
// and scratch).
template <class Vendor>
void renumber(const CellGrid& g, const ParticleBuffers& p, const ParticleBuffers& scratch,
              const CellBuffers& c);

// One thread per particle walks the 27 cells (rows of three cells along x are
// one index range). sorted: particles were renumbered by renumber(), so a
// range holds the particles themselves; otherwise (after bin()) the range
// indexes `permutation` and particles are read indirectly (unsorted memory).
template <class Vendor>
void interaction(const KernelConstants& k, const CellGrid& g, const ParticleBuffers& p,
                 const CellBuffers& c, const RhsBuffers& r, bool sorted);

// Warp per cell over renumbered particles: lists the occupied cells into
// cell_list (n ints) and their count into *listed (device memory), then one
// block of 32 threads per listed cell stages the cell's neighbour candidates
// in shared memory and each thread computes one particle of the cell.
template <class Vendor>
void interaction_per_cell(const KernelConstants& k, const CellGrid& g, const ParticleBuffers& p,
                          const CellBuffers& c, const RhsBuffers& r, int* cell_list, int* listed);

// Maximum over fluid particles of |a|^2, rho and the viscous term, as three
// floats at `maxima` (device memory, zeroed by the launcher).
template <class Vendor>
void time_step_maxima(const ParticleBuffers& p, const RhsBuffers& r, float* maxima);

// Symplectic predictor (saves the state at t^n into `start`) and corrector.
template <class Vendor>
void predictor(float dt, float rho0, const DomainBox& d, const ParticleBuffers& p,
               const ParticleBuffers& start, const RhsBuffers& r);
template <class Vendor>
void corrector(float dt, float rho0, const DomainBox& d, const ParticleBuffers& p,
               const ParticleBuffers& start, const RhsBuffers& r);

// Marks escaped fluid particles (outside the domain, or rho < rho_min) and
// finds the first blown-up particle (non-finite or rho > rho_max):
// flags[0] += newly escaped, flags[1] = min bad index (n when none; the
// launcher initialises both).
template <class Vendor>
void check_state(const DomainBox& d, float rho_min, float rho_max, const ParticleBuffers& p,
                 int* flags);

}  // namespace ppkit::sph::gpu_kernels
