#include "ppkit/fem/cantilever.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>

#include "ppkit/core/error.hpp"
#include "ppkit/core/timing.hpp"
#include "ppkit/fem/gmsh_reader.hpp"
#include "ppkit/fem/hex8_shape.hpp"

namespace ppkit::fem {
namespace {

double timoshenko(const std::array<double, 3>& beam, double E, double nu, double P) {
  const double L = beam[0], b = beam[1], h = beam[2];
  const double I = b * h * h * h / 12, A = b * h, G = E / (2 * (1 + nu));
  const double kappa = 10 * (1 + nu) / (12 + 11 * nu);
  return P * L * L * L / (3 * E * I) + P * L / (kappa * G * A);
}

const std::vector<std::int32_t>& node_group(const HexMesh& mesh, const std::string& name) {
  const auto it = mesh.node_groups.find(name);
  if (it != mesh.node_groups.end()) return it->second;
  std::string present;
  for (const auto& [group, nodes] : mesh.node_groups)
    present += (present.empty() ? "" : ", ") + ("\"" + group + "\"");
  throw Error("the mesh has no node group \"" + name + "\" (it has " +
                  (present.empty() ? std::string("none") : present) + ")",
              "physical groups named \"fixed\" (the held nodes) and \"loaded\" (the loaded end "
              "surface)");
}

// Whether the mesh is the beam Timoshenko's formula describes: it fills its
// bounding box (the elements' volume, 2 x 2 x 2 Gauss points, equals the box's),
// held at its x-minimum face and loaded at its x-maximum face. `beam` gets the
// box's extents.
bool is_box_beam(const HexMesh& mesh, std::array<double, 3>& beam) {
  const auto [low, high] = mesh_bounds(mesh);
  for (int i = 0; i < 3; ++i) beam[i] = high[i] - low[i];
  const double tolerance = 1e-9 * std::max({beam[0], beam[1], beam[2]});
  const auto all_at_x = [&](const std::vector<std::int32_t>& nodes, double x) {
    return std::all_of(nodes.begin(), nodes.end(), [&](std::int32_t v) {
      return std::fabs(mesh.coordinates[3 * std::int64_t(v)] - x) <= tolerance;
    });
  };
  if (!all_at_x(node_group(mesh, "fixed"), low[0]) ||
      !all_at_x(node_group(mesh, "loaded"), high[0]))
    return false;
  double volume = 0;
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e)
    for (int q = 0; q < kGaussPoints; ++q)
      volume += jacobian_determinant(mesh, e, gauss_point(q)) * kGaussWeight;
  const double box = beam[0] * beam[1] * beam[2];
  return std::fabs(volume - box) <= 1e-9 * box;
}

}  // namespace

double timoshenko_tip_deflection(const CantileverSpec& s) {
  return timoshenko(s.size, s.youngs_modulus, s.poisson_ratio, s.load);
}

std::vector<double> end_face_load(const HexMesh& mesh, const std::string& group,
                                  double total_load) {
  const auto& nodes = node_group(mesh, group);
  std::vector<char> in_group(std::size_t(mesh.num_nodes()), 0);
  for (auto v : nodes) in_group[std::size_t(v)] = 1;
  // The faces of the Gmsh hexahedron (bottom 0-3, top 4-7), each in cyclic order.
  constexpr int kFaces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  // Faces with all 4 nodes in the group, by their sorted nodes: a boundary
  // face belongs to one element, an interior one to two.
  std::map<std::array<std::int32_t, 4>, std::pair<std::array<std::int32_t, 4>, int>> faces;
  for (std::int64_t e = 0; e < mesh.num_elements(); ++e)
    for (const auto& face : kFaces) {
      std::array<std::int32_t, 4> corners;
      bool inside = true;
      for (int c = 0; c < 4; ++c) {
        corners[c] = mesh.elements[8 * e + face[c]];
        inside = inside && in_group[std::size_t(corners[c])];
      }
      if (!inside) continue;
      auto key = corners;
      std::sort(key.begin(), key.end());
      auto& entry = faces[key];
      entry.first = corners;
      ++entry.second;
    }
  // Per boundary face, integral N_c dA over the bilinear quadrilateral:
  // x(xi, eta) = sum_c N_c x_c, N_c = (1 + s_c xi)(1 + t_c eta) / 4, dA = |x_xi x x_eta|.
  constexpr int s[4] = {-1, 1, 1, -1}, t[4] = {-1, -1, 1, 1};
  std::vector<double> weight(std::size_t(mesh.num_nodes()), 0.0);
  double area = 0;
  for (const auto& [key, entry] : faces) {
    if (entry.second != 1) continue;
    for (int p = 0; p < 4; ++p) {
      const double xi = s[p] * kGaussAbscissa, eta = t[p] * kGaussAbscissa;
      double dxi[3] = {0, 0, 0}, deta[3] = {0, 0, 0};
      for (int c = 0; c < 4; ++c) {
        const double* x = &mesh.coordinates[3 * std::int64_t(entry.first[c])];
        for (int i = 0; i < 3; ++i) {
          dxi[i] += 0.25 * s[c] * (1 + t[c] * eta) * x[i];
          deta[i] += 0.25 * t[c] * (1 + s[c] * xi) * x[i];
        }
      }
      const double n[3] = {dxi[1] * deta[2] - dxi[2] * deta[1], dxi[2] * deta[0] - dxi[0] * deta[2],
                           dxi[0] * deta[1] - dxi[1] * deta[0]};
      const double dA = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);  // Gauss weights 1
      area += dA;
      for (int c = 0; c < 4; ++c)
        weight[std::size_t(entry.first[c])] += 0.25 * (1 + s[c] * xi) * (1 + t[c] * eta) * dA;
    }
  }
  if (!(area > 0))
    throw Error("node group \"" + group + "\" (" + std::to_string(nodes.size()) +
                    " nodes) covers no boundary face of the mesh",
                "the loaded end as a physical surface whose quadrilaterals are faces of the "
                "hexahedra");
  std::vector<double> forces(std::size_t(mesh.num_dofs()), 0.0);
  for (std::int64_t v = 0; v < mesh.num_nodes(); ++v)
    forces[3 * v + 2] = -total_load * weight[std::size_t(v)] / area;
  return forces;
}

CantileverResult solve_cantilever(const CantileverSpec& spec) {
  require(spec.load != 0, "cantilever load must not be zero", "P != 0");
  Material material;
  material.youngs_modulus = spec.youngs_modulus;
  material.poisson_ratio = spec.poisson_ratio;
  CantileverResult out;
  if (spec.mesh_file.empty()) {
    BoxMeshSpec box;
    box.elements = spec.elements;
    box.size = spec.size;
    out.problem = make_assembly_problem(make_box_mesh(box), material);
  } else {
    out.problem = make_assembly_problem(read_gmsh_file(spec.mesh_file), material);
  }
  const auto& mesh = out.problem.mesh;
  const auto& fixed_nodes = node_group(mesh, "fixed");
  const auto& loaded = node_group(mesh, "loaded");
  // End load: uniform traction over the loaded end, as consistent nodal forces
  // of its bilinear faces (on the box: 1/4 of each face's area per corner).
  std::vector<double> rhs = end_face_load(mesh, "loaded", spec.load);  // body force is zero

  const auto& variant = Registry<FemAssemble>::find_available(spec.variant);
  out.variant = variant.name;
  auto run = variant.prepare(out.problem);
  auto start = std::chrono::steady_clock::now();
  run->run();
  out.assembly_seconds = seconds_since(start);
  AssemblyResult system = run->result();

  std::vector<std::int64_t> fixed;
  for (auto v : fixed_nodes)
    for (int i = 0; i < 3; ++i) fixed.push_back(3 * std::int64_t(v) + i);
  apply_zero_dirichlet(out.problem.pattern, system.values, rhs, fixed);

  start = std::chrono::steady_clock::now();
  out.cg = solve_jacobi_cg(out.problem.pattern, system.values, rhs, spec.cg);
  out.solve_seconds = seconds_since(start);
  out.displacement = out.cg.solution;
  if (!out.cg.converged)
    throw Error("CG did not converge in " + std::to_string(out.cg.iterations) +
                    " iterations (relative residual " + std::to_string(out.cg.relative_residual) +
                    ")",
                "more iterations or a looser tolerance");
  double sum = 0;
  for (auto v : loaded) sum += -out.displacement[3 * std::int64_t(v) + 2];
  out.tip_deflection = sum / double(loaded.size());
  out.beam = spec.size;
  if (spec.mesh_file.empty() || is_box_beam(mesh, out.beam)) {
    out.theory = timoshenko(out.beam, spec.youngs_modulus, spec.poisson_ratio, spec.load);
    out.relative_error = std::fabs(out.tip_deflection - out.theory) / std::fabs(out.theory);
  } else {
    out.theory = out.relative_error = std::numeric_limits<double>::quiet_NaN();
  }
  return out;
}

}  // namespace ppkit::fem
