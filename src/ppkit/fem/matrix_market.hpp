#pragma once
// MatrixMarket export of the assembled system: K as "matrix coordinate real
// general" (one line per stored CSR entry), f as an N x 1 "matrix coordinate
// real general". DOF numbering: 3 * node + component (0-based in ppkit, nodes
// in input-file order); the file is 1-based as the format requires, so DOF d
// is row d + 1.
#include <cstdint>
#include <string>
#include <vector>

#include "ppkit/fem/csr_pattern.hpp"

namespace ppkit::fem {

void write_matrix_market(const std::string& path, const CsrPattern& pattern,
                         const std::vector<double>& values);
void write_vector_market(const std::string& path, const std::vector<double>& vector);

// Reads a coordinate real general file back as (row, column, value) with
// 0-based indices (for checks and round trips).
struct CoordinateEntries {
  std::int64_t rows = 0, columns = 0;
  std::vector<std::int64_t> row, column;
  std::vector<double> value;
};
CoordinateEntries read_matrix_market(const std::string& path);

}  // namespace ppkit::fem
