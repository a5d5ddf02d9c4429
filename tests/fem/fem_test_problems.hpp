#pragma once
// Seeded problems shared by the fem tests: distorted boxes, random materials.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/hex8_shape.hpp"

namespace ppkit::fem::inputs {

inline Material random_material(std::mt19937_64& rng) {
  Material m;
  m.youngs_modulus = std::uniform_real_distribution<double>(1e3, 2e5)(rng);
  m.poisson_ratio = std::uniform_real_distribution<double>(0.05, 0.45)(rng);
  std::uniform_real_distribution<double> b(-3, 3);
  m.body_force = {b(rng), b(rng), 1.0 + b(rng) * b(rng)};  // never all zero
  return m;
}

inline HexMesh distorted_box(std::array<int, 3> n, unsigned seed, double perturbation = 0.15) {
  BoxMeshSpec spec;
  spec.elements = n;
  spec.size = {1.3, 0.9, 1.1};
  spec.perturbation = perturbation;
  spec.seed = seed;
  return make_box_mesh(spec);
}

// distorted_box with its node numbers randomly permuted: element connectivity,
// geometry and node groups unchanged, CSR rows no longer grid lines.
inline HexMesh renumbered_box(std::array<int, 3> n, unsigned seed) {
  auto mesh = distorted_box(n, seed);
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> new_of(mesh.num_nodes());
  std::iota(new_of.begin(), new_of.end(), 0);
  std::shuffle(new_of.begin(), new_of.end(), rng);
  std::vector<double> coordinates(mesh.coordinates.size());
  for (std::int64_t v = 0; v < mesh.num_nodes(); ++v)
    for (int i = 0; i < 3; ++i) coordinates[3 * new_of[v] + i] = mesh.coordinates[3 * v + i];
  mesh.coordinates = coordinates;
  for (auto& v : mesh.elements) v = new_of[v];
  for (auto& group : mesh.node_groups)
    for (auto& v : group.second) v = new_of[v];
  return mesh;
}

// distorted_box with `extra` nodes that no element uses (a Gmsh file may list
// such nodes) inserted at random places in the numbering: their CSR rows are
// empty and their load entries zero.
inline HexMesh box_with_unused_nodes(std::array<int, 3> n, unsigned seed, int extra) {
  auto mesh = distorted_box(n, seed);
  std::mt19937_64 rng(seed);
  const std::int64_t total = mesh.num_nodes() + extra;
  std::vector<std::int32_t> new_of(total);  // old nodes first, then the extra ones
  std::iota(new_of.begin(), new_of.end(), 0);
  std::shuffle(new_of.begin(), new_of.end(), rng);
  std::uniform_real_distribution<double> position(-1.0, 2.0);
  std::vector<double> coordinates(3 * total);
  for (std::int64_t v = 0; v < total; ++v)
    for (int i = 0; i < 3; ++i)
      coordinates[3 * new_of[v] + i] =
          v < mesh.num_nodes() ? mesh.coordinates[3 * v + i] : position(rng);
  mesh.coordinates = coordinates;
  for (auto& v : mesh.elements) v = new_of[v];
  for (auto& group : mesh.node_groups)
    for (auto& v : group.second) v = new_of[v];
  return mesh;
}

// A mesh with a node in more than 8 elements (as unstructured hex meshes
// have): `sectors` convex quadrilaterals around the z axis (centre, inner ring
// node k, outer node between k and k + 1, inner ring node k + 1, ring radii
// jittered by the seed), extruded through `layers` layers, so the centre
// nodes of inner levels lie in 2 * sectors elements.
inline HexMesh fan_mesh(int sectors, int layers, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(-0.05, 0.05);
  const double pi = 3.14159265358979323846;
  const int per_level = 2 * sectors + 1;  // centre, inner ring, outer ring
  HexMesh mesh;
  for (int level = 0; level <= layers; ++level) {
    const double z = 0.4 * level + jitter(rng);
    mesh.coordinates.insert(mesh.coordinates.end(), {jitter(rng), jitter(rng), z});
    for (int ring = 0; ring < 2; ++ring)
      for (int k = 0; k < sectors; ++k) {
        const double angle = 2 * pi * (k + 0.5 * ring) / sectors;
        const double radius = (ring == 0 ? 1.0 : 1.6) + jitter(rng);
        mesh.coordinates.insert(mesh.coordinates.end(),
                                {radius * std::cos(angle), radius * std::sin(angle), z});
      }
  }
  for (int layer = 0; layer < layers; ++layer)
    for (int k = 0; k < sectors; ++k) {
      const std::int32_t quad[4] = {0, 1 + k, 1 + sectors + k, 1 + (k + 1) % sectors};
      for (int level = layer; level <= layer + 1; ++level)
        for (const std::int32_t v : quad) mesh.elements.push_back(level * per_level + v);
    }
  return mesh;
}

// One distorted element's coordinates (a perturbed, scaled unit cube).
inline ElementCoordinates distorted_element(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> shift(-0.2, 0.2);
  ElementCoordinates x;
  for (int a = 0; a < 8; ++a)
    for (int i = 0; i < 3; ++i)
      x[3 * a + i] = (kNodeSigns[a][i] > 0 ? 1.0 : 0.0) * (1 + 0.5 * i) + shift(rng);
  return x;
}

}  // namespace ppkit::fem::inputs
