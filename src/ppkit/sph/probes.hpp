#pragma once
// Probes of SPHERIC test 2: water heights H1..H4 along vertical lines and
// pressures P1..P8 near the obstacle faces, evaluated on the host from a state.
#include <array>
#include <string>
#include <vector>

#include "ppkit/sph/sph_types.hpp"

namespace ppkit::sph {

struct ProbeLayout {
  std::array<std::array<double, 2>, 4> height_xy;     // H1..H4 (x, y)
  std::array<std::array<double, 3>, 8> pressure_xyz;  // P1..P8 sampling points
  double floor_z = 0;
  double top_z = 1;
};

// Positions from data/spheric_test2/README.md. Pressure points are
// moved h into the water from the box face (P1..P4, x = 0.8245 + h) and top
// (P5..P8, z = 0.161 + h), where the kernel sum sees fluid particles only.
ProbeLayout spheric_test2_probes(const Parameters& p);

struct ProbeSample {
  double time = 0;
  std::array<double, 4> height{};    // m
  std::array<double, 8> pressure{};  // Pa
};

// Water height along a vertical line: the water depth, the line integral of
// the kernel-interpolated fluid volume fraction,
//   H = int sum_fluid V_j W(|x - x_j|) dz = sum_fluid V_j W_2D(r_j),
// with W_2D the kernel projected along z and r_j the particle's horizontal
// distance from the line (0 when dry). For a connected column standing on the
// floor this is its free-surface height; thin fronts count from their first
// particle layer.
// Pressure: Shepard interpolation of fluid pressures (0 when the point is dry:
// sum_fluid V_j W < 0.1). Escaped particles are ignored.
ProbeSample measure_probes(const ProbeLayout& layout, const Parameters& p, const Particles& s,
                           double time);

std::string probe_csv_header();  // time,H1,H2,H3,H4,P1,...,P8
std::string probe_csv_row(const ProbeSample& sample);

// Measured SPHERIC test 2 series with the height columns in probe order
// (the file's H1 and H3 labels are swapped, see its README).
struct MeasuredSeries {
  std::vector<double> time;
  std::vector<std::array<double, 4>> height;
  std::vector<std::array<double, 8>> pressure;
};
MeasuredSeries load_spheric_test2(const std::string& path);

// Where the measured file is: $PPKIT_SPHERIC_TEST2_DATA (the file or its
// directory), else the copy shipped in the source tree (data/spheric_test2),
// the installed one (<prefix>/share/ppkit/spheric_test2), or
// data/spheric_test2 under the current directory. Returns "" and sets
// *why_not (the places tried) when none exists.
std::string find_spheric_test2_data(std::string* why_not = nullptr);

// First time a height series exceeds `threshold`, linearly interpolated
// between the samples around the crossing (NaN if never).
double arrival_time(const std::vector<double>& time, const std::vector<double>& height,
                    double threshold);

}  // namespace ppkit::sph
