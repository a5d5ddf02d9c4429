// Jacobi CG on assembled stiffness matrices, the cantilever against
// Timoshenko beam theory, VTU output, and the C API.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

#include "fem_test_problems.hpp"
#include "harness/variant_test.hpp"
#include "ppkit.h"
#include "ppkit/fem/cantilever.hpp"
#include "ppkit/fem/vtu_writer.hpp"
#include "ppkit_fem.h"

namespace {
using namespace ppkit::fem;

TEST(FemSolve, JacobiCgSolvesAConstrainedDistortedBox) {
  const unsigned seed = ppkit::testing::test_seed();
  std::mt19937_64 rng(seed);
  const auto problem =
      make_assembly_problem(inputs::distorted_box({6, 3, 3}, seed), inputs::random_material(rng));
  auto K = assemble_reference(problem);
  std::vector<double> b(problem.mesh.num_dofs());
  std::uniform_real_distribution<double> uni(-1, 1);
  for (double& v : b) v = uni(rng);
  std::vector<std::int64_t> fixed;
  for (auto v : problem.mesh.node_groups.at("fixed"))
    for (int i = 0; i < 3; ++i) fixed.push_back(3 * std::int64_t(v) + i);
  apply_zero_dirichlet(problem.pattern, K.values, b, fixed);
  const auto cg = solve_jacobi_cg(problem.pattern, K.values, b, {1e-12, 10000, {}});
  ASSERT_TRUE(cg.converged);
  const auto& p = problem.pattern;
  double residual = 0, norm = 0;
  for (std::int64_t r = 0; r < p.num_rows; ++r) {
    double Ax = 0;
    for (auto k = p.row_offsets[r]; k < p.row_offsets[r + 1]; ++k)
      Ax += K.values[k] * cg.solution[p.column_indices[k]];
    residual += (Ax - b[r]) * (Ax - b[r]);
    norm += b[r] * b[r];
  }
  EXPECT_LE(std::sqrt(residual / norm), 1e-10);  // true residual, not CG's recurrence
  for (auto d : fixed) EXPECT_EQ(cg.solution[d], 0.0);
}

TEST(FemCantilever, TipDeflectionWithinTwoPercentOfTimoshenkoAndConverges) {
  CantileverSpec coarse;
  coarse.elements = {20, 2, 2};
  CantileverSpec fine;
  fine.elements = {80, 8, 8};  // equal-sided bricks of 1/8 m
  const auto c = solve_cantilever(coarse);
  const auto f = solve_cantilever(fine);
  EXPECT_LT(f.relative_error, 0.02) << "tip " << f.tip_deflection << " theory " << f.theory;
  EXPECT_LT(f.tip_deflection, f.theory);  // trilinear bricks are stiffer than the beam (locking)
  EXPECT_LT(f.relative_error, c.relative_error);  // refinement converges towards theory
  EXPECT_GT(c.relative_error, 0.05);              // ... from a visibly locked coarse mesh
}

// A box beam as a Gmsh .msh 4.1 file: its nodes in a seeded random order, its
// hexahedra in volume 1 (physical group "beam"), and the quadrilaterals of two
// of its faces in surfaces 1 and 2, physical groups "fixed" and `loaded_name`:
// x = 0 and x = LX, or with `load_on_top` the face z = LZ instead of x = LX.
std::string write_box_msh(const BoxMeshSpec& spec, unsigned seed, const std::string& loaded_name,
                          bool load_on_top = false) {
  const HexMesh box = make_box_mesh(spec);
  const int nx = spec.elements[0], ny = spec.elements[1], nz = spec.elements[2];
  const auto node = [&](int i, int j, int k) { return i + (nx + 1) * (j + (ny + 1) * k); };
  std::vector<int> order(std::size_t(box.num_nodes()));  // file position -> box node
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int> tag(order.size());  // box node -> Gmsh node tag
  for (std::size_t p = 0; p < order.size(); ++p) tag[std::size_t(order[p])] = int(p) + 1;
  std::vector<std::array<int, 4>> fixed, loaded;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j) {
      fixed.push_back({node(0, j, k), node(0, j + 1, k), node(0, j + 1, k + 1), node(0, j, k + 1)});
      if (!load_on_top)
        loaded.push_back(
            {node(nx, j, k), node(nx, j + 1, k), node(nx, j + 1, k + 1), node(nx, j, k + 1)});
    }
  if (load_on_top)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        loaded.push_back(
            {node(i, j, nz), node(i + 1, j, nz), node(i + 1, j + 1, nz), node(i, j + 1, nz)});
  const double X = spec.size[0], Y = spec.size[1], Z = spec.size[2];
  std::ostringstream f;
  f.precision(17);
  f << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n3\n2 1 \"fixed\"\n2 2 \""
    << loaded_name << "\"\n3 3 \"beam\"\n$EndPhysicalNames\n$Entities\n0 0 2 1\n"
    << "1 0 0 0 0 " << Y << " " << Z << " 1 1 0\n"
    << "2 0 0 0 " << X << " " << Y << " " << Z << " 1 2 0\n"
    << "1 0 0 0 " << X << " " << Y << " " << Z << " 1 3 2 1 2\n$EndEntities\n";
  f << "$Nodes\n1 " << order.size() << " 1 " << order.size() << "\n3 1 0 " << order.size() << "\n";
  for (std::size_t p = 0; p < order.size(); ++p) f << p + 1 << "\n";
  for (int v : order)
    f << box.coordinates[3 * std::size_t(v)] << " " << box.coordinates[3 * std::size_t(v) + 1]
      << " " << box.coordinates[3 * std::size_t(v) + 2] << "\n";
  const std::size_t quads = fixed.size() + loaded.size();
  const auto hexes = std::size_t(box.num_elements());
  f << "$EndNodes\n$Elements\n3 " << quads + hexes << " 1 " << quads + hexes << "\n";
  std::size_t element = 1;
  for (const auto* faces : {&fixed, &loaded}) {
    f << "2 " << (faces == &fixed ? 1 : 2) << " 3 " << faces->size() << "\n";
    for (const auto& q : *faces)
      f << element++ << " " << tag[std::size_t(q[0])] << " " << tag[std::size_t(q[1])] << " "
        << tag[std::size_t(q[2])] << " " << tag[std::size_t(q[3])] << "\n";
  }
  f << "3 1 5 " << hexes << "\n";
  for (std::size_t e = 0; e < hexes; ++e) {
    f << element++;
    for (int a = 0; a < 8; ++a) f << " " << tag[std::size_t(box.elements[8 * e + a])];
    f << "\n";
  }
  f << "$EndElements\n";
  const std::string path = ::testing::TempDir() + "fem_beam_" + std::to_string(seed) + ".msh";
  std::ofstream(path) << f.str();
  return path;
}

TEST(FemCantilever, EndLoadIsTheConsistentTractionOfTheLoadedFaces) {
  // Rectangular faces: 1/4 of each face's share of the area per corner.
  BoxMeshSpec spec;
  spec.elements = {3, 4, 2};
  spec.size = {2.0, 3.0, 0.5};
  const double P = 7.5;
  const auto forces = end_face_load(make_box_mesh(spec), "loaded", P);
  for (int k = 0; k <= 2; ++k)
    for (int j = 0; j <= 4; ++j) {
      const double wy = (j == 0 || j == 4 ? 0.5 : 1.0) / 4, wz = (k == 0 || k == 2 ? 0.5 : 1.0) / 2;
      const std::size_t node = 3 + 4 * (j + 5 * std::size_t(k));
      EXPECT_NEAR(forces[3 * node + 2], -P * wy * wz, 1e-14 * P) << "node " << node;
    }
  // Moved nodes (the end face stays the plane x = LX, its quadrilaterals
  // distorted): the forces still add up to the load, on the end's nodes only,
  // and no longer equal the rectangular shares.
  spec.perturbation = 0.12;
  spec.seed = ppkit::testing::test_seed();
  const HexMesh moved = make_box_mesh(spec);
  const auto distorted = end_face_load(moved, "loaded", P);
  const auto& end = moved.node_groups.at("loaded");
  double total = 0, off_end = 0, largest_change = 0;
  for (std::int64_t v = 0; v < moved.num_nodes(); ++v) {
    EXPECT_EQ(distorted[3 * v], 0.0);
    EXPECT_EQ(distorted[3 * v + 1], 0.0);
    total += distorted[3 * v + 2];
    if (!std::binary_search(end.begin(), end.end(), std::int32_t(v)))
      off_end += std::fabs(distorted[3 * v + 2]);
    largest_change = std::max(largest_change, std::fabs(distorted[3 * v + 2] - forces[3 * v + 2]));
  }
  EXPECT_NEAR(total, -P, 1e-13 * P);
  EXPECT_EQ(off_end, 0.0);
  EXPECT_GT(largest_change, 1e-3 * P);
}

TEST(FemCantilever, GmshBeamMatchesTheBoxAndTheory) {
  CantileverSpec box;
  box.elements = {20, 2, 2};
  BoxMeshSpec beam;
  beam.elements = box.elements;
  beam.size = box.size;
  CantileverSpec file = box;
  file.mesh_file = write_box_msh(beam, ppkit::testing::test_seed(), "loaded");
  const auto b = solve_cantilever(box);
  const auto f = solve_cantilever(file);
  std::remove(file.mesh_file.c_str());
  // The same beam with its nodes renumbered: the same tip deflection.
  EXPECT_NEAR(f.tip_deflection, b.tip_deflection, 1e-8 * b.tip_deflection);
  EXPECT_EQ(f.beam, box.size);  // the mesh's bounding box
  EXPECT_NEAR(f.theory, timoshenko_tip_deflection(box), 1e-12 * f.theory);
  EXPECT_NEAR(f.relative_error, b.relative_error, 1e-6);
}

TEST(FemCantilever, ShippedGmshBeamIsTheBoxBeam) {
  // examples/fem/beam_20x2x2.msh, the example of docs/fem.md ("How to run").
  CantileverSpec box;
  box.elements = {20, 2, 2};
  CantileverSpec file;
  file.mesh_file = std::string(PPKIT_FEM_EXAMPLES) + "/beam_20x2x2.msh";
  const auto b = solve_cantilever(box);
  const auto f = solve_cantilever(file);
  EXPECT_NEAR(f.tip_deflection, b.tip_deflection, 1e-8 * b.tip_deflection);
  EXPECT_EQ(f.beam, box.size);
  EXPECT_EQ(f.problem.mesh.node_groups.at("fixed").size(), 9u);
  EXPECT_EQ(f.problem.mesh.node_groups.at("loaded").size(), 9u);
}

TEST(FemCantilever, GmshMeshWithoutALoadedGroupOrNotABeam) {
  BoxMeshSpec beam;
  beam.elements = {6, 2, 2};
  beam.size = {3.0, 1.0, 1.0};
  CantileverSpec spec;
  spec.mesh_file = write_box_msh(beam, ppkit::testing::test_seed(), "end");
  try {
    solve_cantilever(spec);
    ADD_FAILURE() << "a mesh without group \"loaded\" was solved";
  } catch (const ppkit::Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "no node group \"loaded\" (it has \"beam\", \"end\", \"fixed\")"),
              std::string::npos)
        << e.what();
  }
  std::remove(spec.mesh_file.c_str());
  // Loaded on its top face: solved, the load spread over the top, but not the
  // end-loaded beam of the theory.
  spec.mesh_file = write_box_msh(beam, ppkit::testing::test_seed(), "loaded", true);
  const auto top = solve_cantilever(spec);
  std::remove(spec.mesh_file.c_str());
  EXPECT_TRUE(top.cg.converged);
  EXPECT_GT(top.tip_deflection, 0.0);
  EXPECT_TRUE(std::isnan(top.theory));
  EXPECT_TRUE(std::isnan(top.relative_error));
}

TEST(FemCantilever, VonMisesFollowsBeamBendingAndVtuHasTheFields) {
  CantileverSpec spec;
  spec.elements = {40, 4, 4};
  const auto r = solve_cantilever(spec);
  Material m{spec.youngs_modulus, spec.poisson_ratio, {0, 0, 0}};
  const auto vm = element_von_mises(r.problem.mesh, m, r.displacement);
  // Mid-span, top layer (i = 20, j = 1, k = 3): centre at x = 5.125, z - h/2 = 0.375;
  // beam bending stress sigma = P (L - x) z / I dominates (shear adds < 1%).
  const double expected = spec.load * (10.0 - 5.125) * 0.375 / (1.0 / 12);
  EXPECT_NEAR(vm[20 + 40 * (1 + 4 * 3)], expected, 0.1 * expected);
  EXPECT_GT(vm[0 + 40 * (1 + 4 * 3)],
            vm[39 + 40 * (1 + 4 * 3)]);  // moment largest at the fixed end
  const std::string path = ::testing::TempDir() + "fem_cantilever.vtu";
  write_vtu(path, r.problem.mesh, r.displacement, vm);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("NumberOfPoints=\"1025\" NumberOfCells=\"640\""), std::string::npos);
  EXPECT_NE(text.str().find("Name=\"displacement\""), std::string::npos);
  EXPECT_NE(text.str().find("Name=\"von_mises\""), std::string::npos);
  std::remove(path.c_str());
}

TEST(FemCApi, AssemblesIntoCallerOwnedCsrArrays) {
  ASSERT_EQ(ppkit_init(), 0);
  const unsigned seed = ppkit::testing::test_seed();
  std::mt19937_64 rng(seed);
  const auto mesh = inputs::distorted_box({3, 2, 2}, seed);
  const auto material = inputs::random_material(rng);
  int64_t rows = 0, nnz = 0;
  ASSERT_EQ(
      ppkit_fem_csr_size(mesh.num_nodes(), mesh.num_elements(), mesh.elements.data(), &rows, &nnz),
      0)
      << ppkit_fem_last_error();
  std::vector<int64_t> row_offsets(rows + 1);
  std::vector<int32_t> columns(nnz);
  std::vector<double> values(nnz), load(rows);
  ASSERT_EQ(ppkit_fem_assemble(mesh.num_nodes(), mesh.coordinates.data(), mesh.num_elements(),
                               mesh.elements.data(), material.youngs_modulus,
                               material.poisson_ratio, material.body_force.data(), nullptr,
                               row_offsets.data(), columns.data(), values.data(), load.data()),
            0)
      << ppkit_fem_last_error();
  const auto problem = make_assembly_problem(mesh, material);
  const auto reference = assemble_reference(problem);
  EXPECT_EQ(row_offsets, problem.pattern.row_offsets);
  EXPECT_EQ(columns, problem.pattern.column_indices);
  EXPECT_LE(assembly_relative_error({values, load}, reference), 1e-12);

  auto bad = mesh.elements;
  std::swap(bad[8 * 4 + 0], bad[8 * 4 + 6]);  // element 4 folded
  EXPECT_NE(ppkit_fem_assemble(mesh.num_nodes(), mesh.coordinates.data(), mesh.num_elements(),
                               bad.data(), 1e9, 0.3, nullptr, "auto", row_offsets.data(),
                               columns.data(), values.data(), load.data()),
            0);
  EXPECT_NE(std::string(ppkit_fem_last_error()).find("element 4"), std::string::npos)
      << ppkit_fem_last_error();
  EXPECT_NE(ppkit_fem_assemble(mesh.num_nodes(), mesh.coordinates.data(), mesh.num_elements(),
                               mesh.elements.data(), 1e9, 0.3, nullptr, "no-such-variant",
                               row_offsets.data(), columns.data(), values.data(), load.data()),
            0);
  EXPECT_NE(std::string(ppkit_fem_last_error()).find("unknown variant"), std::string::npos);
}

}  // namespace
