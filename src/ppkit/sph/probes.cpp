#include "ppkit/sph/probes.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ppkit/core/error.hpp"
#include "ppkit/sph/reference.hpp"
#include "ppkit/sph/sph_pair.hpp"

namespace ppkit::sph {

ProbeLayout spheric_test2_probes(const Parameters& p) {
  ProbeLayout l;
  const double xs[4] = {0.496, 0.992, 1.488, 2.638};
  for (int k = 0; k < 4; ++k) l.height_xy[k] = {xs[k], 0.5};
  const double y_centre = 0.5 * (0.2955 + 0.6985);
  const double face_z[4] = {0.021, 0.061, 0.101, 0.141};
  for (int k = 0; k < 4; ++k) l.pressure_xyz[k] = {0.8245 + p.h, y_centre, face_z[k]};
  const double top_x[4] = {0.8035, 0.7635, 0.7235, 0.6835};
  for (int k = 0; k < 4; ++k) l.pressure_xyz[4 + k] = {top_x[k], y_centre, 0.161 + p.h};
  l.floor_z = 0;
  l.top_z = 1.0;
  return l;
}

namespace {

// Kernel sums at a point: sum V_j W over fluid and boundary, and sum p_j V_j W over fluid.
struct PointSums {
  double fluid = 0, boundary = 0, pressure = 0;
};

PointSums sums_at(const Parameters& p, const KernelConstants& k, const Particles& s,
                  const std::vector<std::size_t>& candidates, double x, double y, double z) {
  PointSums out;
  for (std::size_t j : candidates) {
    const double dx = x - s.x[j], dy = y - s.y[j], dz = z - s.z[j];
    const double r = std::sqrt(dx * dx + dy * dy + dz * dz);
    if (r >= 2 * p.h) continue;
    const double vw = p.mass / s.rho[j] * reference::wendland(r, p.h);
    if (s.kind[j] == kFluid) {
      out.fluid += vw;
      out.pressure += vw * tait_pressure(k, s.rho[j]);
    } else {
      out.boundary += vw;
    }
  }
  return out;
}

// Particles within the kernel support of a vertical line (r_h < 2h) or of a point.
std::vector<std::size_t> near_line(const Parameters& p, const Particles& s, double x, double y,
                                   double z_lo, double z_hi) {
  std::vector<std::size_t> out;
  const double reach = 2 * p.h;
  for (std::size_t j = 0; j < s.size(); ++j) {
    if (s.kind[j] == kEscaped) continue;
    const double dx = s.x[j] - x, dy = s.y[j] - y;
    if (dx * dx + dy * dy >= reach * reach) continue;
    if (s.z[j] < z_lo - reach || s.z[j] > z_hi + reach) continue;
    out.push_back(j);
  }
  return out;
}

}  // namespace

ProbeSample measure_probes(const ProbeLayout& layout, const Parameters& p, const Particles& s,
                           double time) {
  const KernelConstants k = make_kernel_constants(p);
  ProbeSample out;
  out.time = time;
  // Water depth along each vertical line: the line integral of the fluid's
  // kernel-interpolated volume fraction, sum_fluid V_j int W(r_j(z)) dz, that
  // is each particle's volume spread over the horizontal plane by the kernel
  // projected along z. A layer of any thickness counts with its volume, so a
  // thin front is seen as soon as it arrives (a fraction-crossing rule sees
  // nothing thinner than about 2.5 dp, the kernel support). The integral over
  // the whole line makes the floor, and the dynamic-boundary gap above it,
  // irrelevant. Midpoint rule with 32 points per particle chord.
  for (int h = 0; h < 4; ++h) {
    const double x = layout.height_xy[h][0], y = layout.height_xy[h][1];
    const auto cand = near_line(p, s, x, y, layout.floor_z, layout.top_z);
    const double support = 2 * p.h;
    double depth = 0;
    for (std::size_t j : cand) {
      if (s.kind[j] != kFluid) continue;
      const double dx = x - s.x[j], dy = y - s.y[j];
      const double r2 = dx * dx + dy * dy;
      if (r2 >= support * support) continue;
      const double half_chord = std::sqrt(support * support - r2);
      constexpr int kPoints = 32;
      const double ds = 2 * half_chord / kPoints;
      double integral = 0;
      for (int point = 0; point < kPoints; ++point) {
        const double along = -half_chord + (point + 0.5) * ds;
        integral += reference::wendland(std::sqrt(r2 + along * along), p.h) * ds;
      }
      depth += p.mass / s.rho[j] * integral;
    }
    out.height[h] = depth;
  }
  for (int q = 0; q < 8; ++q) {
    const auto& pt = layout.pressure_xyz[q];
    const auto cand = near_line(p, s, pt[0], pt[1], pt[2], pt[2]);
    const PointSums ps = sums_at(p, k, s, cand, pt[0], pt[1], pt[2]);
    out.pressure[q] = ps.fluid < 0.1 ? 0.0 : ps.pressure / ps.fluid;
  }
  return out;
}

std::string probe_csv_header() { return "time,H1,H2,H3,H4,P1,P2,P3,P4,P5,P6,P7,P8"; }

std::string probe_csv_row(const ProbeSample& sample) {
  std::ostringstream o;
  o.precision(6);
  o << std::fixed << sample.time;
  o.precision(5);
  for (double h : sample.height) o << ',' << h;
  o.precision(1);
  for (double v : sample.pressure) o << ',' << v;
  return o.str();
}

MeasuredSeries load_spheric_test2(const std::string& path) {
  std::ifstream in(path);
  require(bool(in), "cannot read the SPHERIC test 2 data '" + path + "'",
          "data/spheric_test2/test_case_2_exp_data.dat of the source tree");
  std::string line;
  std::getline(in, line);  // header
  MeasuredSeries m;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    double t, v[12];
    if (!(row >> t)) continue;
    for (double& x : v) row >> x;
    if (!row) throw Error("malformed row in '" + path + "': " + line, "13 numbers per row");
    m.time.push_back(t);
    std::array<double, 8> pressure;
    for (int k = 0; k < 8; ++k) pressure[k] = v[k];
    m.pressure.push_back(pressure);
    // File columns labelled H1, H2, H3, H4 hold the probes H3, H2, H1, H4.
    m.height.push_back({v[10], v[9], v[8], v[11]});
  }
  require(!m.time.empty(), "no data rows in '" + path + "'");
  return m;
}

std::string find_spheric_test2_data(std::string* why_not) {
  namespace fs = std::filesystem;
  const std::string file = "test_case_2_exp_data.dat";
  if (const char* env = std::getenv("PPKIT_SPHERIC_TEST2_DATA"); env && *env) {
    const fs::path p(env);
    const fs::path candidate = fs::is_directory(p) ? p / file : p;
    if (fs::is_regular_file(candidate)) return candidate.string();
    if (why_not)
      *why_not = "PPKIT_SPHERIC_TEST2_DATA=" + std::string(env) + " names no readable " + file;
    return "";
  }
  // The copy shipped in the repository (data/spheric_test2), then the one
  // `cmake --install` puts in <prefix>/share/ppkit/spheric_test2, then
  // data/spheric_test2 under the current directory.
  std::vector<fs::path> candidates;
#ifdef PPKIT_SOURCE_DIR
  candidates.push_back(fs::path(PPKIT_SOURCE_DIR) / "data" / "spheric_test2" / file);
#endif
#ifdef PPKIT_DATA_INSTALL_DIR
  candidates.push_back(fs::path(PPKIT_DATA_INSTALL_DIR) / "spheric_test2" / file);
#endif
  candidates.push_back(fs::path("data") / "spheric_test2" / file);
  for (const auto& c : candidates)
    if (fs::is_regular_file(c)) return c.lexically_normal().string();
  if (why_not) {
    *why_not = "the SPHERIC test 2 measurements (" + file + ") are in none of";
    for (const auto& c : candidates) *why_not += " " + c.lexically_normal().string();
    *why_not += "; set PPKIT_SPHERIC_TEST2_DATA to the file or its directory";
  }
  return "";
}

double arrival_time(const std::vector<double>& time, const std::vector<double>& height,
                    double threshold) {
  for (std::size_t i = 0; i < time.size() && i < height.size(); ++i) {
    if (height[i] <= threshold) continue;
    if (i == 0) return time[0];
    // Linear interpolation between the last sample below and the first above.
    const double w = (threshold - height[i - 1]) / (height[i] - height[i - 1]);
    return time[i - 1] + w * (time[i] - time[i - 1]);
  }
  return std::nan("");
}

}  // namespace ppkit::sph
