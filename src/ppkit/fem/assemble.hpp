#pragma once
// fem.assemble: generate every hex8 element stiffness matrix and body-force
// vector and add them into the global CSR matrix and load vector (Kiran,
// Sharma & Gautam, J. Comput. Des. Eng. 6 (2019) 705-718).
#include <cstdint>
#include <vector>

#include "ppkit/core/data_location.hpp"
#include "ppkit/core/registry.hpp"
#include "ppkit/fem/colouring.hpp"
#include "ppkit/fem/csr_pattern.hpp"
#include "ppkit/fem/element_reference.hpp"
#include "ppkit/fem/hex_mesh.hpp"

namespace ppkit::fem {

// The paper's reordered kernel inputs (section 3.3): element by element in
// colour order, so a warp reads its element's 24 coordinates, 8 node ids and
// 64 CSR block positions contiguously.
struct ColouredElements {
  std::vector<double> coordinates;            // 24 per element: node a, component i at 3a+i
  std::vector<std::int32_t> nodes;            // 8 per element
  std::vector<std::int64_t> block_positions;  // 64 per element: [8a + b], see csr_pattern.hpp
  std::vector<std::int64_t> colour_offsets;   // elements of colour c: [offsets[c], offsets[c+1])
  std::int64_t num_elements() const { return std::int64_t(nodes.size() / 8); }
  int num_colours() const { return int(colour_offsets.size()) - 1; }
};

struct AssemblyProblem {
  HexMesh mesh;
  Material material;
  ElementColouring colouring;
  CsrPattern pattern;
  ColouredElements coloured;
  // false: the variant is prepared as an operator on the caller's arrays
  // (AssemblerApplier): it allocates no values or load of its own, and its
  // run() and result() refuse. Material is then only a placeholder.
  bool own_outputs = true;
};

struct AssemblyResult {
  std::vector<double> values;  // CSR values in the order of pattern.column_indices
  std::vector<double> load;    // 3 * nodes, DOF 3 * node + component
};

struct FemAssemble {
  static constexpr const char* name = "fem.assemble";
  using Problem = AssemblyProblem;
  using Result = AssemblyResult;
};

// The operator side of every fem.assemble variant (fem::Assembler, the C
// handles, assembler.hpp): each variant's prepared run implements it.
// Prepared on a problem with own_outputs = false it holds only its set-up
// (layouts, colourings, CSR block positions, coordinates) on its device.
class AssemblerApplier {
 public:
  virtual ~AssemblerApplier() = default;
  // Queues the assembly of K (values: pattern.num_nonzeros() entries in the
  // order of pattern.column_indices) and f (load: mesh.num_dofs() entries)
  // for `material` into the caller's arrays in memory(); every entry is
  // written (no zeroing needed). stream: the native stream to queue on
  // (cudaStream_t, hipStream_t; nullptr: the default stream), nullptr on
  // the host. The arrays are the kernels' destinations: no copy is made.
  virtual void assemble(const Material& material, double* values, double* load, void* stream) = 0;
  // Replaces the node coordinates (3 per node, host memory, the mesh's
  // numbering; the connectivity is unchanged) for the assemblies queued
  // after it returns. Waits for the work queued before, then redoes the
  // set-up that depends on coordinates: every variant re-gathers its element
  // coordinates into its own element order (the Gauss-point geometry of
  // two-kernel and the gathers is formed in every assembly anyway). Orders
  // chosen at creation from the positions (the Morton orders of the
  // factored, tiled and gather layouts) are kept: they only serve locality.
  virtual void update_coordinates(const std::vector<double>& coordinates) = 0;
  // Waits for the work queued on stream.
  virtual void wait(void* stream) = 0;
  // Where values and load must live.
  virtual DataLocation memory() const = 0;
};

// The message run() and result() give on a run prepared as an operator.
constexpr const char* operator_only_run =
    "this fem.assemble run was prepared as an operator (own_outputs = false): call assemble()";

// Validates mesh and material, colours the elements, builds the CSR pattern,
// the CSR block positions and the reordered inputs.
AssemblyProblem make_assembly_problem(HexMesh mesh, const Material& material);

// Reference: element by element (colour by colour on host threads), every entry found in
// its CSR row by binary search (it does not use the CSR block positions).
AssemblyResult assemble_reference(const AssemblyProblem& problem);

// max(||K - K_ref|| / ||K_ref||, ||f - f_ref|| / ||f_ref||) (2-norms; NaN if any NaN).
double assembly_relative_error(const AssemblyResult& result, const AssemblyResult& reference);

// Roofline model per assembly (docs/fem.md, "Byte models"):
//  bytes: the compulsory DRAM traffic, each input read once and each output
//    written once: the node coordinates (3 x 8 B per node), the connectivity
//    (8 x 4 B per element), the CSR values (8 B per nonzero) and the load
//    vector (8 B per DOF). Whatever a strategy reads to find its entries
//    (block positions, cluster tables, the CSR pattern) is derived from these
//    and differs between strategies, so none of it is counted: the figure is
//    a lower bound for every strategy, and a roofline above 100% is an error.
//  modelled_bytes: the paper's kernel layout (section 3.3) with every update
//    a DRAM read-modify-write: per element 24 coordinates (8 B), 8 node ids
//    (4 B), 64 CSR block positions (8 B), 8 row lengths (2 row offsets of 8 B
//    each), read-modify-write of 576 matrix values and 24 load values (16 B
//    each), plus zeroing the CSR values and load vector once (8 B per nonzero
//    and per DOF).
//  flops: B^T D B entry by entry as strategies (a)-(e) do it (the factored
//    strategy (f) does about a fifth of them, docs/fem.md).
struct AssemblyCost {
  double bytes = 0;
  double modelled_bytes = 0;
  double flops = 0;
};
AssemblyCost assembly_cost(const AssemblyProblem& problem);
constexpr double kModelledBytesPerElement = 24 * 8 + 8 * 4 + 64 * 8 + 8 * 16 + 576 * 16 + 24 * 16;
// Jacobians 8*9*8*2, det+inverse 8*50, physical derivatives 8*24*5,
// dot products 8*64*5, entries 8*576*8, load 8*24*3, additions 576+24.
constexpr double kFlopsPerElement =
    8 * 9 * 8 * 2 + 8 * 50 + 8 * 24 * 5 + 8 * 64 * 5 + 8 * 576 * 8 + 8 * 24 * 3 + 576 + 24;

}  // namespace ppkit::fem
