#include "ppkit/fem/assembly_checks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <thread>

#include "ppkit/core/error.hpp"

namespace ppkit::fem {
namespace {

// Splits [0, n) into one contiguous range per host thread; f(begin, end, t).
template <class F>
void for_row_ranges(std::int64_t n, F&& f) {
  const unsigned threads =
      std::max(1u, std::min<unsigned>(64u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  const std::int64_t chunk = (n + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    const std::int64_t begin = std::min<std::int64_t>(n, t * chunk),
                       end = std::min<std::int64_t>(n, begin + chunk);
    pool.emplace_back([&, begin, end, t] { f(begin, end, t); });
  }
  for (auto& th : pool) th.join();
}

ElementCoordinates element_coordinates(const HexMesh& mesh, std::int64_t e) {
  ElementCoordinates x;
  for (int a = 0; a < 8; ++a) {
    const std::int64_t v = mesh.elements[8 * e + a];
    for (int i = 0; i < 3; ++i) x[3 * a + i] = mesh.coordinates[3 * v + i];
  }
  return x;
}

}  // namespace

AssemblyInvariants assembly_invariants(const AssemblyProblem& problem,
                                       const AssemblyResult& result) {
  const auto& pattern = problem.pattern;
  const auto& xyz = problem.mesh.coordinates;
  require(result.values.size() == std::size_t(pattern.num_nonzeros()),
          "result holds " + std::to_string(result.values.size()) + " values",
          std::to_string(pattern.num_nonzeros()) + " (the CSR pattern's nonzeros)");
  const std::int64_t nodes = problem.mesh.num_nodes();
  double centre[3] = {0, 0, 0};
  for (std::int64_t v = 0; v < nodes; ++v)
    for (int a = 0; a < 3; ++a) centre[a] += xyz[3 * v + a] / double(nodes);
  // Component c of rigid-body mode k at node v: translations e_k (k < 3),
  // rotations omega_(k-3) x (x - centre).
  auto mode = [&](int k, std::int64_t v, int c) {
    if (k < 3) return c == k ? 1.0 : 0.0;
    const double d[3] = {xyz[3 * v] - centre[0], xyz[3 * v + 1] - centre[1],
                         xyz[3 * v + 2] - centre[2]};
    // (e_axis x d)_c = eps_{c axis m} d_m: +d_(c+2) if axis = c+1, -d_(c+1) if axis = c+2 (mod 3).
    const int axis = k - 3, next = (c + 1) % 3, after = (c + 2) % 3;
    return (axis == next ? d[after] : 0.0) - (axis == after ? d[next] : 0.0);
  };
  struct Partial {
    double max_entry = 0, max_asym = 0;
    std::array<double, 6> max_residual{}, max_scale{};
    bool nan = false;
  };
  const unsigned threads =
      std::max(1u, std::min<unsigned>(64u, std::thread::hardware_concurrency()));
  std::vector<Partial> partial(threads);
  for_row_ranges(pattern.num_rows, [&](std::int64_t begin, std::int64_t end, unsigned t) {
    Partial& p = partial[t];
    for (std::int64_t row = begin; row < end; ++row) {
      std::array<double, 6> sum{}, scale{};
      for (std::int64_t k = pattern.row_offsets[row]; k < pattern.row_offsets[row + 1]; ++k) {
        const double value = result.values[k];
        if (std::isnan(value)) p.nan = true;
        const std::int32_t column = pattern.column_indices[k];
        p.max_entry = std::max(p.max_entry, std::abs(value));
        // K_(column, row): binary search in row `column`.
        const auto first = pattern.column_indices.begin() + pattern.row_offsets[column];
        const auto last = pattern.column_indices.begin() + pattern.row_offsets[column + 1];
        const auto it = std::lower_bound(first, last, std::int32_t(row));
        const double mirrored = (it != last && *it == row)
                                    ? result.values[it - pattern.column_indices.begin()]
                                    : INFINITY;  // pattern not symmetric
        p.max_asym = std::max(p.max_asym, std::abs(value - mirrored));
        for (int m = 0; m < 6; ++m) {
          const double term = value * mode(m, column / 3, column % 3);
          sum[m] += term;
          scale[m] += std::abs(term);
        }
      }
      for (int m = 0; m < 6; ++m) {
        p.max_residual[m] = std::max(p.max_residual[m], std::abs(sum[m]));
        p.max_scale[m] = std::max(p.max_scale[m], scale[m]);
      }
    }
  });
  Partial all;
  for (const auto& p : partial) {
    all.nan = all.nan || p.nan;
    all.max_entry = std::max(all.max_entry, p.max_entry);
    all.max_asym = std::max(all.max_asym, p.max_asym);
    for (int m = 0; m < 6; ++m) {
      all.max_residual[m] = std::max(all.max_residual[m], p.max_residual[m]);
      all.max_scale[m] = std::max(all.max_scale[m], p.max_scale[m]);
    }
  }
  AssemblyInvariants out;
  if (all.nan) return {std::nan(""), std::nan("")};
  out.symmetry = all.max_entry > 0 ? all.max_asym / all.max_entry : 0.0;
  for (int m = 0; m < 6; ++m)
    if (all.max_scale[m] > 0)
      out.rigid_body = std::max(out.rigid_body, all.max_residual[m] / all.max_scale[m]);
  return out;
}

std::vector<double> reference_load(const AssemblyProblem& problem) {
  const auto& mesh = problem.mesh;
  std::vector<double> load(mesh.num_dofs(), 0.0);
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e) {
    const auto f = element_body_force_reference(element_coordinates(mesh, e), problem.material);
    for (int a = 0; a < 8; ++a)
      for (int i = 0; i < 3; ++i)
        load[3 * std::int64_t(mesh.elements[8 * e + a]) + i] += f[3 * a + i];
  }
  return load;
}

SampledRows sample_reference_rows(const AssemblyProblem& problem, int nodes, unsigned seed) {
  const auto& mesh = problem.mesh;
  const auto& pattern = problem.pattern;
  require(nodes > 0, "sampled nodes " + std::to_string(nodes), "> 0");
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> pick(0, mesh.num_nodes() - 1);
  std::vector<std::int64_t> sample;
  for (int k = 0; k < nodes; ++k) sample.push_back(pick(rng));
  std::sort(sample.begin(), sample.end());
  sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
  std::map<std::int64_t, std::size_t> slot;  // node -> index in `sample`
  for (std::size_t k = 0; k < sample.size(); ++k) slot[sample[k]] = k;

  SampledRows out;
  for (std::int64_t v : sample)
    for (int i = 0; i < 3; ++i) {
      const std::int64_t row = 3 * v + i;
      out.rows.push_back(row);
      out.values.emplace_back(pattern.row_offsets[row + 1] - pattern.row_offsets[row], 0.0);
      out.load.push_back(0.0);
    }
  // Every element touching a sampled node adds its rows of that node.
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e) {
    std::array<int, 8> local{};
    int touching = 0;
    for (int a = 0; a < 8; ++a)
      if (slot.count(mesh.elements[8 * e + a])) local[touching++] = a;
    if (!touching) continue;
    const auto x = element_coordinates(mesh, e);
    const auto K = element_stiffness_reference(x, problem.material);
    const auto f = element_body_force_reference(x, problem.material);
    for (int t = 0; t < touching; ++t) {
      const int a = local[t];
      const std::size_t s = slot[mesh.elements[8 * e + a]];
      for (int i = 0; i < 3; ++i) {
        const std::size_t r = 3 * s + i;
        const std::int64_t row = out.rows[r];
        out.load[r] += f[3 * a + i];
        const auto first = pattern.column_indices.begin() + pattern.row_offsets[row];
        const auto last = pattern.column_indices.begin() + pattern.row_offsets[row + 1];
        for (int b = 0; b < 8; ++b)
          for (int j = 0; j < 3; ++j) {
            const std::int32_t column = 3 * mesh.elements[8 * e + b] + j;
            const auto it = std::lower_bound(first, last, column);
            require(it != last && *it == column, "CSR pattern lacks entry (" + std::to_string(row) +
                                                     ", " + std::to_string(column) + ")");
            out.values[r][it - first] += K[24 * (3 * a + i) + 3 * b + j];
          }
      }
    }
  }
  return out;
}

double sampled_rows_error(const AssemblyProblem& problem, const SampledRows& reference,
                          const AssemblyResult& result) {
  const auto& pattern = problem.pattern;
  if (result.values.size() != std::size_t(pattern.num_nonzeros()) ||
      result.load.size() != std::size_t(pattern.num_rows))
    return INFINITY;
  double dk = 0, nk = 0, df = 0, nf = 0;
  for (std::size_t r = 0; r < reference.rows.size(); ++r) {
    const std::int64_t row = reference.rows[r];
    for (std::size_t k = 0; k < reference.values[r].size(); ++k) {
      const double want = reference.values[r][k];
      const double got = result.values[pattern.row_offsets[row] + k];
      dk += (got - want) * (got - want);
      nk += want * want;
    }
    df += (result.load[row] - reference.load[r]) * (result.load[row] - reference.load[r]);
    nf += reference.load[r] * reference.load[r];
  }
  if (std::isnan(dk) || std::isnan(df)) return std::nan("");
  const double ek = nk > 0 ? std::sqrt(dk / nk) : std::sqrt(dk);
  const double ef = nf > 0 ? std::sqrt(df / nf) : std::sqrt(df);
  return std::max(ek, ef);
}

}  // namespace ppkit::fem
