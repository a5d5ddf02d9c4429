// The Gmsh .msh 4.1 reader (node order, physical groups, clear errors naming
// the line) and the MatrixMarket export (1-based, DOF 3*node + component).
#include <cstdio>
#include <fstream>
#include <sstream>

#include "harness/variant_test.hpp"
#include "ppkit/fem/assemble.hpp"
#include "ppkit/fem/gmsh_reader.hpp"
#include "ppkit/fem/matrix_market.hpp"

namespace {
using namespace ppkit::fem;

std::string sample_path() { return std::string(PPKIT_FEM_TEST_DATA) + "/two_hexahedra.msh"; }

std::string sample_text() {
  std::ifstream in(sample_path());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string read_error(const std::string& text) {
  std::istringstream in(text);
  try {
    read_gmsh(in, "bad.msh");
  } catch (const ppkit::Error& e) {
    return e.what();
  }
  return "";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return text.replace(pos, from.size(), to);
}

TEST(FemGmsh, ReadsNodesHexahedraAndPhysicalGroups) {
  const auto mesh = read_gmsh_file(sample_path());
  ASSERT_EQ(mesh.num_nodes(), 12);
  ASSERT_EQ(mesh.num_elements(), 2);
  EXPECT_EQ(mesh.coordinates[3 * 2], 2.0);  // node tag 103 is the third node: (2, 0, 0)
  EXPECT_EQ(std::vector<std::int32_t>(mesh.elements.begin(), mesh.elements.begin() + 8),
            (std::vector<std::int32_t>{0, 1, 4, 3, 6, 7, 10, 9}));
  EXPECT_EQ(mesh.node_groups.at("fixed"), (std::vector<std::int32_t>{0, 3, 6, 9}));
  EXPECT_EQ(mesh.node_groups.at("loaded"), (std::vector<std::int32_t>{2, 5, 8, 11}));
  EXPECT_EQ(mesh.node_groups.at("body").size(), 12u);
  EXPECT_NO_THROW(validate_mesh(mesh));
}

TEST(FemGmsh, ErrorsNameTheLine) {
  const std::string text = sample_text();
  auto e = read_error(text.substr(0, text.find("4 102 103")));
  EXPECT_NE(e.find("file ends"), std::string::npos) << e;
  e = read_error(
      replaced(text, "4 102 103 106 105 108 109 112 111", "4 102 103 106 105 108 109 999 111"));
  EXPECT_NE(e.find("bad.msh line 52: element 4 refers to unknown node 999"), std::string::npos)
      << e;
  e = read_error(replaced(text, "3 1 5 2", "3 1 4 2"));
  EXPECT_NE(e.find("line 50: unsupported element type 4"), std::string::npos) << e;
  e = read_error(replaced(text, "1 0 0\n", "1 zero 0\n"));
  EXPECT_NE(e.find("expected a number"), std::string::npos) << e;
  EXPECT_NE(e.find("'zero'"), std::string::npos) << e;
  e = read_error(replaced(text, "4.1 0 8", "2.2 0 8"));
  EXPECT_NE(e.find("line 2: unsupported Gmsh format version 2.2"), std::string::npos) << e;
  e = read_error(replaced(text, "$EndNodes", "$EndNode"));
  EXPECT_NE(e.find("expected '$EndNodes'"), std::string::npos) << e;
}

TEST(FemGmsh, InvertedHexahedronIsNamedByTagAndLine) {
  // Top and bottom faces swapped: det J < 0.
  std::istringstream in(replaced(sample_text(), "4 102 103 106 105 108 109 112 111",
                                 "4 108 109 112 111 102 103 106 105"));
  const auto mesh = read_gmsh(in, "flipped.msh");
  try {
    validate_mesh(mesh);
    FAIL() << "no error for an inverted element";
  } catch (const ppkit::Error& err) {
    EXPECT_NE(std::string(err.what())
                  .find("element 1 (Gmsh element tag 4, flipped.msh line 52) has det J"),
              std::string::npos)
        << err.what();
  }
}

TEST(FemMatrixMarket, ExportIsOneBasedAndRoundTrips) {
  const auto problem =
      make_assembly_problem(read_gmsh_file(sample_path()), Material{2e5, 0.3, {0, 0, -1}});
  const auto result = assemble_reference(problem);
  const std::string k_path = ::testing::TempDir() + "fem_K.mtx",
                    f_path = ::testing::TempDir() + "fem_f.mtx";
  write_matrix_market(k_path, problem.pattern, result.values);
  write_vector_market(f_path, result.load);
  const auto K = read_matrix_market(k_path);
  ASSERT_EQ(K.rows, 36);
  ASSERT_EQ(std::int64_t(K.value.size()), problem.pattern.num_nonzeros());
  for (std::size_t k = 0; k < K.value.size(); ++k) {
    ASSERT_EQ(K.column[k], problem.pattern.column_indices[k]);
    ASSERT_EQ(K.value[k], result.values[k]);  // %.17g round-trips exactly
  }
  EXPECT_EQ(K.row.front(), 0);
  EXPECT_EQ(K.row.back(), 35);
  const auto f = read_matrix_market(f_path);
  ASSERT_EQ(f.rows, 36);
  for (std::size_t k = 0; k < f.value.size(); ++k) ASSERT_EQ(f.value[k], result.load[f.row[k]]);
  // z component (DOF 3*node + 2) carries the body force; total = b_z * volume (2).
  double fz = 0;
  for (int v = 0; v < 12; ++v) fz += f.value[3 * v + 2];
  EXPECT_NEAR(fz, -2.0, 1e-13);
  std::remove(k_path.c_str());
  std::remove(f_path.c_str());
}

}  // namespace
