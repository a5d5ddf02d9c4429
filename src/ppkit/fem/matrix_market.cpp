#include "ppkit/fem/matrix_market.hpp"

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "ppkit/core/error.hpp"

namespace ppkit::fem {
namespace {
struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
std::unique_ptr<std::FILE, FileCloser> open_for_writing(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "w"));
  if (!f) throw Error("cannot write '" + path + "'", "a writable path");
  return f;
}
const char* kNumbering =
    "%% DOF numbering: row/column 3*node + component + 1 (1-based; nodes in input order)\n";
}  // namespace

void write_matrix_market(const std::string& path, const CsrPattern& pattern,
                         const std::vector<double>& values) {
  require(std::int64_t(values.size()) == pattern.num_nonzeros(),
          "CSR values do not match the pattern");
  auto f = open_for_writing(path);
  std::fprintf(f.get(), "%%%%MatrixMarket matrix coordinate real general\n%s", kNumbering);
  std::fprintf(f.get(), "%lld %lld %lld\n", (long long)pattern.num_rows,
               (long long)pattern.num_rows, (long long)pattern.num_nonzeros());
  for (std::int64_t r = 0; r < pattern.num_rows; ++r)
    for (auto k = pattern.row_offsets[r]; k < pattern.row_offsets[r + 1]; ++k)
      std::fprintf(f.get(), "%lld %d %.17g\n", (long long)r + 1, pattern.column_indices[k] + 1,
                   values[k]);
  if (std::ferror(f.get()))
    throw Error("writing '" + path + "' failed", "a writable path with free space");
}

void write_vector_market(const std::string& path, const std::vector<double>& vector) {
  auto f = open_for_writing(path);
  std::fprintf(f.get(), "%%%%MatrixMarket matrix coordinate real general\n%s", kNumbering);
  std::fprintf(f.get(), "%lld 1 %lld\n", (long long)vector.size(), (long long)vector.size());
  for (std::size_t i = 0; i < vector.size(); ++i)
    std::fprintf(f.get(), "%zu 1 %.17g\n", i + 1, vector[i]);
  if (std::ferror(f.get()))
    throw Error("writing '" + path + "' failed", "a writable path with free space");
}

CoordinateEntries read_matrix_market(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open '" + path + "'", "a MatrixMarket file");
  std::string line;
  long line_number = 0;
  auto fail = [&](const std::string& what) {
    throw Error(path + " line " + std::to_string(line_number) + ": " + what,
                "MatrixMarket coordinate real general");
  };
  if (!std::getline(in, line) ||
      line.rfind("%%MatrixMarket matrix coordinate real general", 0) != 0)
    fail("unsupported header '" + line + "'");
  ++line_number;
  CoordinateEntries out;
  std::int64_t entries = -1;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line[0] == '%') continue;
    std::istringstream s(line);
    if (entries < 0) {
      if (!(s >> out.rows >> out.columns >> entries)) fail("malformed size line");
      continue;
    }
    std::int64_t r, c;
    double v;
    if (!(s >> r >> c >> v)) fail("malformed entry");
    if (r < 1 || r > out.rows || c < 1 || c > out.columns) fail("index out of range");
    out.row.push_back(r - 1);
    out.column.push_back(c - 1);
    out.value.push_back(v);
  }
  if (entries < 0 || std::int64_t(out.value.size()) != entries)
    fail("entry count does not match the size line");
  return out;
}

}  // namespace ppkit::fem
