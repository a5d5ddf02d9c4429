#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <thread>

#include "ppkit/core/error.hpp"
#include "ppkit/fem/assemble.hpp"

namespace ppkit::fem {

AssemblyProblem make_assembly_problem(HexMesh mesh, const Material& material) {
  validate_material(material);
  validate_mesh(mesh);
  AssemblyProblem p;
  p.mesh = std::move(mesh);
  p.material = material;
  p.colouring = colour_elements(p.mesh);
  p.pattern = build_csr_pattern(p.mesh);
  const auto positions = build_csr_block_positions(p.mesh, p.pattern);
  const std::int64_t num_elements = p.mesh.num_elements();
  auto& c = p.coloured;
  c.colour_offsets = p.colouring.colour_offsets;
  c.coordinates.resize(24 * num_elements);
  c.nodes.resize(8 * num_elements);
  c.block_positions.resize(64 * num_elements);
  for (std::int64_t k = 0; k < num_elements; ++k) {
    const std::int64_t e = p.colouring.order[k];
    for (int a = 0; a < 8; ++a) {
      const std::int32_t v = p.mesh.elements[8 * e + a];
      c.nodes[8 * k + a] = v;
      for (int i = 0; i < 3; ++i)
        c.coordinates[24 * k + 3 * a + i] = p.mesh.coordinates[3 * std::int64_t(v) + i];
    }
    std::copy_n(positions.begin() + 64 * e, 64, c.block_positions.begin() + 64 * k);
  }
  return p;
}

AssemblyResult assemble_reference(const AssemblyProblem& problem) {
  const auto& mesh = problem.mesh;
  const auto& pattern = problem.pattern;
  AssemblyResult out;
  out.values.assign(pattern.num_nonzeros(), 0.0);
  out.load.assign(mesh.num_dofs(), 0.0);
  auto value_index = [&](std::int64_t row, std::int32_t column) {
    const auto first = pattern.column_indices.begin() + pattern.row_offsets[row];
    const auto last = pattern.column_indices.begin() + pattern.row_offsets[row + 1];
    const auto it = std::lower_bound(first, last, column);
    require(it != last && *it == column, "CSR pattern lacks entry (" + std::to_string(row) + ", " +
                                             std::to_string(column) + ")");
    return it - pattern.column_indices.begin();
  };
  auto add_element = [&](std::int64_t e) {
    ElementCoordinates x;
    std::int64_t dof[24];
    for (int a = 0; a < 8; ++a) {
      const std::int64_t v = mesh.elements[8 * e + a];
      for (int i = 0; i < 3; ++i) {
        x[3 * a + i] = mesh.coordinates[3 * v + i];
        dof[3 * a + i] = 3 * v + i;
      }
    }
    const auto K = element_stiffness_reference(x, problem.material);
    const auto f = element_body_force_reference(x, problem.material);
    for (int r = 0; r < 24; ++r) {
      out.load[dof[r]] += f[r];
      for (int c = 0; c < 24; ++c)
        out.values[value_index(dof[r], std::int32_t(dof[c]))] += K[24 * r + c];
    }
  };
  // Elements of one colour share no node, so host threads may add them
  // concurrently (this only makes the reference affordable at 6.5 M DOF).
  const auto& colouring = problem.colouring;
  const unsigned threads = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
  std::vector<std::exception_ptr> errors(threads);
  for (int c = 0; c < colouring.num_colours(); ++c) {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        try {
          for (std::int64_t k = colouring.colour_offsets[c] + t;
               k < colouring.colour_offsets[c + 1]; k += threads)
            add_element(colouring.order[k]);
        } catch (...) {
          errors[t] = std::current_exception();
        }
      });
    for (auto& th : pool) th.join();
    for (auto& err : errors)
      if (err) std::rethrow_exception(err);
  }
  return out;
}

namespace {
double relative_l2(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return std::nan("");
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  if (std::isnan(diff)) return std::nan("");
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}
}  // namespace

double assembly_relative_error(const AssemblyResult& result, const AssemblyResult& reference) {
  const double k = relative_l2(result.values, reference.values);
  const double f = relative_l2(result.load, reference.load);
  if (std::isnan(k) || std::isnan(f)) return std::nan("");
  return std::max(k, f);
}

AssemblyCost assembly_cost(const AssemblyProblem& problem) {
  const double elements = double(problem.mesh.num_elements());
  const double nonzeros = double(problem.pattern.num_nonzeros());
  const double dofs = double(problem.mesh.num_dofs());
  AssemblyCost cost;
  // Compulsory: coordinates and connectivity read once, values and load written once.
  cost.bytes = double(problem.mesh.coordinates.size()) * sizeof(double) +
               double(problem.mesh.elements.size()) * sizeof(std::int32_t) +
               nonzeros * sizeof(double) + dofs * sizeof(double);
  // The paper's layout; zeroing the CSR values and the load vector (8 B each) is
  // part of every timed assembly.
  cost.modelled_bytes = elements * kModelledBytesPerElement + 8.0 * (nonzeros + dofs);
  cost.flops = elements * kFlopsPerElement;
  return cost;
}

}  // namespace ppkit::fem
