#include "ppkit/fdtd/snapshots.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "ppkit/core/error.hpp"
#include "ppkit/core/image_figure.hpp"
#include "ppkit/core/image_output.hpp"

namespace ppkit::fdtd {

int parse_axis(const std::string& s) {
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return char(std::tolower(ch)); });
  if (lower == "x") return 0;
  if (lower == "y") return 1;
  if (lower == "z") return 2;
  throw Error("unknown axis '" + s + "'", "x, y, z");
}

const char* axis_name(int axis) { return axis == 0 ? "x" : axis == 1 ? "y" : "z"; }

std::array<int, 2> plane_axes(int normal) {
  return normal == 0   ? std::array<int, 2>{1, 2}
         : normal == 1 ? std::array<int, 2>{0, 2}
                       : std::array<int, 2>{0, 1};
}

std::array<index_t, 2> plane_size(const YeeGrid& g, int normal) {
  const index_t n[3] = {g.nx + 1, g.ny + 1, g.nz + 1};
  const auto ab = plane_axes(normal);
  return {n[ab[0]], n[ab[1]]};
}

void validate(const PlaneSnapshot& s, const YeeGrid& g) {
  require(s.normal >= 0 && s.normal <= 2,
          "snapshot normal " + std::to_string(s.normal) + " is not an axis", "x, y, z");
  const index_t n[3] = {g.nx, g.ny, g.nz};
  require(s.index >= 0 && s.index <= n[s.normal],
          std::string("snapshot plane ") + axis_name(s.normal) + " = " + std::to_string(s.index) +
              " is outside the grid",
          std::string(axis_name(s.normal)) + " index 0.." + std::to_string(n[s.normal]));
  require(s.every >= 1, "snapshot interval 'every' must be at least 1 step", ">= 1");
  require(s.png_range[0] < s.png_range[1] || (s.png_range[0] == 0 && s.png_range[1] == 0),
          "snapshot PNG range [" + std::to_string(s.png_range[0]) + ", " +
              std::to_string(s.png_range[1]) + "] is empty",
          "[min, max] with min < max, or omitted (symmetric about 0)");
  image::parse_colour_map(s.colour_map);
}

PlaneSnapshot parse_snapshot_spec(const std::string& spec) {
  const std::string valid =
      "COMPONENT:NORMAL:INDEX:EVERY:STEM[:vtk|png], e.g. ez:z:12:50:out/ez_z12";
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (std::size_t colon; (colon = spec.find(':', from)) != std::string::npos; from = colon + 1)
    parts.push_back(spec.substr(from, colon - from));
  parts.push_back(spec.substr(from));
  if (parts.size() < 5 || parts.size() > 6)
    throw Error("snapshot '" + spec + "' has " + std::to_string(parts.size()) + " fields", valid);
  PlaneSnapshot s;
  s.component = parse_component(parts[0]);
  s.normal = parse_axis(parts[1]);
  try {
    std::size_t used = 0;
    s.index = std::stoll(parts[2], &used);
    if (used != parts[2].size()) throw std::invalid_argument(parts[2]);
    s.every = std::stoll(parts[3], &used);
    if (used != parts[3].size()) throw std::invalid_argument(parts[3]);
  } catch (const std::logic_error&) {
    throw Error("snapshot '" + spec + "': INDEX and EVERY must be integers", valid);
  }
  require(!parts[4].empty(), "snapshot '" + spec + "' has an empty file stem", valid);
  const std::string kind = parts.size() == 6 ? parts[5] : "both";
  require(kind == "both" || kind == "vtk" || kind == "png",
          "snapshot '" + spec + "': unknown output '" + kind + "'", "vtk, png (or omitted: both)");
  if (kind != "png") s.vtk = parts[4];
  if (kind != "vtk") s.png = parts[4];
  return s;
}

PlaneCopy plane_copy(const YeeGrid& g, index_t pz, int normal, index_t index) {
  const index_t sx = (g.ny + 1) * pz;
  PlaneCopy c;
  if (normal == 0) {  // (j, k): each j row is nz + 1 long, rows pz apart
    c.offset = index * sx;
    c.rows = g.ny + 1;
    c.row_length = g.nz + 1;
    c.row_pitch = pz;
  } else if (normal == 1) {  // (i, k)
    c.offset = index * pz;
    c.rows = g.nx + 1;
    c.row_length = g.nz + 1;
    c.row_pitch = sx;
  } else {  // (i, j): one element per (i, j) row
    c.offset = index;
    c.rows = (g.nx + 1) * (g.ny + 1);
    c.row_length = 1;
    c.row_pitch = pz;
  }
  return c;
}

std::vector<float> frame_from_native(const std::vector<float>& native, index_t na, index_t nb) {
  std::vector<float> out(native.size());
  for (index_t ia = 0; ia < na; ++ia)
    for (index_t ib = 0; ib < nb; ++ib)
      out[std::size_t(ib * na + ia)] = native[std::size_t(ia * nb + ib)];
  return out;
}

std::vector<std::pair<std::int64_t, int>> snapshot_schedule(const std::vector<PlaneSnapshot>& s,
                                                            std::int64_t steps) {
  std::vector<std::pair<std::int64_t, int>> out;
  for (std::size_t n = 0; n < s.size(); ++n)
    for (std::int64_t step = s[n].every - 1; step < steps; step += s[n].every)
      out.push_back({step, int(n)});
  std::sort(out.begin(), out.end());
  return out;
}

namespace {
std::string numbered(const std::string& stem, std::int64_t number, const char* extension) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "_%06lld", static_cast<long long>(number));
  return stem + digits + extension;
}

// Position of a component's node (0, 0, 0) in cells (Yee offsets).
std::array<double, 3> component_offset(Component c) {
  std::array<double, 3> o{0, 0, 0};
  const int ci = int(c);
  for (int a = 0; a < 3; ++a)
    o[std::size_t(a)] = ci < 3 ? (a == ci ? 0.5 : 0.0) : (a == ci - 3 ? 0.0 : 0.5);
  return o;
}
}  // namespace

std::vector<std::string> write_snapshot_files(const YeeGrid& g,
                                              const std::vector<PlaneSnapshot>& snapshots,
                                              const std::vector<SnapshotFrame>& frames) {
  std::vector<std::string> written;
  const double d[3] = {g.dx, g.dy, g.dz};
  for (std::size_t n = 0; n < snapshots.size(); ++n) {
    const PlaneSnapshot& s = snapshots[n];
    if (s.vtk.empty() && s.png.empty()) continue;
    const auto ab = plane_axes(s.normal);
    const auto size = plane_size(g, s.normal);
    image::ImageGrid grid;
    const auto offset = component_offset(s.component);
    for (int a = 0; a < 3; ++a) {
      grid.spacing[std::size_t(a)] = d[a];
      grid.origin[std::size_t(a)] = offset[std::size_t(a)] * d[a];
    }
    grid.origin[std::size_t(s.normal)] += double(s.index) * d[s.normal];
    grid.points[std::size_t(ab[0])] = size[0];
    grid.points[std::size_t(ab[1])] = size[1];
    grid.points[std::size_t(s.normal)] = 1;
    // PNG range: stated, or symmetric about zero over all frames of this snapshot.
    double lo = s.png_range[0], hi = s.png_range[1];
    if (lo == 0 && hi == 0) {
      double peak = 0;
      for (const auto& f : frames)
        if (f.snapshot == int(n))
          for (float v : f.values) peak = std::max(peak, double(std::abs(v)));
      hi = peak > 0 ? peak : 1.0;
      lo = -hi;
    }
    const auto map = image::parse_colour_map(s.colour_map);
    std::string pvd;
    for (const auto& f : frames) {
      if (f.snapshot != int(n)) continue;
      const double time = double(f.step + 1) * g.dt - (is_electric(s.component) ? 0.0 : 0.5 * g.dt);
      if (!s.vtk.empty()) {
        const std::string path = numbered(s.vtk, f.step + 1, ".vti");
        image::write_vti(path, grid, {{to_string(s.component), 1, f.values}});
        written.push_back(path);
        const std::string base = path.substr(path.find_last_of('/') + 1);
        char line[512];
        std::snprintf(line, sizeof line, "    <DataSet timestep=\"%.9g\" file=\"%s\"/>\n", time,
                      base.c_str());
        pvd += line;
      }
      if (!s.png.empty()) {
        const std::string path = numbered(s.png, f.step + 1, ".png");
        image::FigureSpec figure;
        figure.horizontal = {axis_name(ab[0]), grid.origin[std::size_t(ab[0])], d[ab[0]]};
        figure.vertical = {axis_name(ab[1]), grid.origin[std::size_t(ab[1])], d[ab[1]]};
        figure.quantity = to_string(s.component);
        figure.unit = is_electric(s.component) ? "V/m" : "A/m";
        figure.value_min = lo, figure.value_max = hi, figure.map = map;
        figure.title = std::string(to_string(s.component)) + " on " + axis_name(s.normal) + " = " +
                       image::format_si(grid.origin[std::size_t(s.normal)], "m") + " (index " +
                       std::to_string(s.index) + "), step " + std::to_string(f.step + 1) +
                       ", t = " + image::format_si(time, "s");
        image::write_figure_png(path, size[0], size[1], f.values, figure);
        written.push_back(path);
      }
    }
    if (!s.vtk.empty()) {  // ParaView time series of the .vti frames
      const std::string path = s.vtk + ".pvd";
      std::ofstream out(path);
      if (!out) throw Error("cannot write '" + path + "'", "a writable path");
      out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\">\n"
          << "  <Collection>\n"
          << pvd << "  </Collection>\n</VTKFile>\n";
      written.push_back(path);
    }
  }
  return written;
}

}  // namespace ppkit::fdtd
