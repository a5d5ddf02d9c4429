#include "ppkit/fdtd/yee_grid.hpp"

#include <algorithm>
#include <cctype>

#include "ppkit/core/error.hpp"

namespace ppkit::fdtd {

const char* to_string(Component c) {
  static const char* names[] = {"ex", "ey", "ez", "hx", "hy", "hz"};
  return names[int(c)];
}

Component parse_component(const std::string& s) {
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return char(std::tolower(ch)); });
  for (int c = 0; c < 6; ++c)
    if (lower == to_string(Component(c))) return Component(c);
  throw Error("unknown field component '" + s + "'", "ex, ey, ez, hx, hy, hz");
}

bool YeeGrid::holds(Component c, index_t i, index_t j, index_t k) const {
  if (i < 0 || j < 0 || k < 0 || i > nx || j > ny || k > nz) return false;
  switch (c) {
    case Component::ex:
      return i < nx;
    case Component::ey:
      return j < ny;
    case Component::ez:
      return k < nz;
    case Component::hx:
      return j < ny && k < nz;
    case Component::hy:
      return i < nx && k < nz;
    case Component::hz:
      return i < nx && j < ny;
  }
  return false;
}

YeeGrid make_grid(index_t nx, index_t ny, index_t nz, double lx, double ly, double lz,
                  double courant) {
  require(nx >= 2 && ny >= 2 && nz >= 2,
          "grid of " + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) +
              " cells is too small",
          "at least 2 cells per axis");
  // 2^48 nodes (a petabyte per fp32 field) keeps every node count, index and
  // byte count the solvers form inside 64 bits.
  constexpr double max_nodes = 281474976710656.0;  // 2^48
  require(double(nx) + 1 <= max_nodes && double(ny) + 1 <= max_nodes &&
              double(nz) + 1 <= max_nodes &&
              (double(nx) + 1) * (double(ny) + 1) * (double(nz) + 1) <= max_nodes,
          "grid of " + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) +
              " cells has more nodes than any machine holds",
          "at most 2^48 nodes ((nx+1)(ny+1)(nz+1))");
  require(lx > 0 && ly > 0 && lz > 0, "domain size must be positive", "LX, LY, LZ > 0 metres");
  require(courant > 0 && courant <= 1,
          "Courant number " + std::to_string(courant) + " is above the 3D stability limit",
          "0 < courant <= 1 (fraction of 1/(c sqrt(1/dx^2+1/dy^2+1/dz^2)))");
  YeeGrid g;
  g.nx = nx;
  g.ny = ny;
  g.nz = nz;
  g.dx = lx / double(nx);
  g.dy = ly / double(ny);
  g.dz = lz / double(nz);
  g.dt = courant * g.courant_limit();
  return g;
}

}  // namespace ppkit::fdtd
