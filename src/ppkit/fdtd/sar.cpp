// SAR from E phasors: cell-centre interpolation, point and whole-body SAR,
// 1 g / 10 g cube averages (sar.hpp, IEEE/IEC 62704-1 with the simplifications
// listed there).
#include "ppkit/fdtd/sar.hpp"

#include <cmath>
#include <complex>
#include <fstream>
#include <algorithm>
#include <limits>

#include "ppkit/core/error.hpp"
#include "ppkit/core/image_figure.hpp"
#include "ppkit/core/image_output.hpp"

namespace ppkit::fdtd {

std::vector<double> cell_centre_e_squared(const PhasorSet& p, int frequency,
                                          double amplitude_scale) {
  const index_t cx = p.extent[0] - 1, cy = p.extent[1] - 1, cz = p.extent[2] - 1;
  require(cx >= 1 && cy >= 1 && cz >= 1, "phasor box holds no whole cell",
          "a box of at least 2 nodes per axis");
  require(frequency >= 0 && std::size_t(frequency) < p.frequencies.size(),
          "SAR frequency index " + std::to_string(frequency) + " is out of range",
          "0.." + std::to_string(int(p.frequencies.size()) - 1));
  std::vector<double> e2(std::size_t(cx * cy * cz));
  auto phasor = [&](int c, index_t i, index_t j, index_t k) {
    const std::size_t q = std::size_t(p.at(frequency, c, i + p.lo[0], j + p.lo[1], k + p.lo[2]));
    return std::complex<double>(p.re[q], p.im[q]);
  };
  for (index_t i = 0; i < cx; ++i)
    for (index_t j = 0; j < cy; ++j)
      for (index_t k = 0; k < cz; ++k) {
        // Ex lives on the x edges (i+1/2, j|j+1, k|k+1), Ey and Ez likewise.
        const std::complex<double> ex =
            0.25 * (phasor(0, i, j, k) + phasor(0, i, j + 1, k) + phasor(0, i, j, k + 1) +
                    phasor(0, i, j + 1, k + 1));
        const std::complex<double> ey =
            0.25 * (phasor(1, i, j, k) + phasor(1, i + 1, j, k) + phasor(1, i, j, k + 1) +
                    phasor(1, i + 1, j, k + 1));
        const std::complex<double> ez =
            0.25 * (phasor(2, i, j, k) + phasor(2, i + 1, j, k) + phasor(2, i, j + 1, k) +
                    phasor(2, i + 1, j + 1, k));
        e2[std::size_t((i * cy + j) * cz + k)] =
            amplitude_scale * amplitude_scale * (std::norm(ex) + std::norm(ey) + std::norm(ez));
      }
  return e2;
}

namespace {

// Summed-volume table with queries over index ranges that may wrap around on
// periodic axes (a range longer than the axis counts whole periods).
class VolumeSums {
 public:
  VolumeSums(const std::vector<double>& values, std::array<index_t, 3> n) : n_(n) {
    table_.assign(std::size_t((n[0] + 1) * (n[1] + 1) * (n[2] + 1)), 0.0);
    for (index_t i = 0; i < n[0]; ++i)
      for (index_t j = 0; j < n[1]; ++j)
        for (index_t k = 0; k < n[2]; ++k)
          at(i + 1, j + 1, k + 1) = values[std::size_t((i * n[1] + j) * n[2] + k)] +
                                    at(i, j + 1, k + 1) + at(i + 1, j, k + 1) +
                                    at(i + 1, j + 1, k) - at(i, j, k + 1) - at(i, j + 1, k) -
                                    at(i + 1, j, k) + at(i, j, k);
  }
  // Sum over [lo, hi] (inclusive, unwrapped indices) per axis.
  double sum(std::array<index_t, 3> lo, std::array<index_t, 3> hi) const {
    struct Segment {
      index_t a, b;  // [a, b) in the table
      double weight;
    };
    std::array<std::vector<Segment>, 3> segments;
    for (int d = 0; d < 3; ++d) {
      const index_t n = n_[std::size_t(d)], length = hi[std::size_t(d)] - lo[std::size_t(d)] + 1;
      const index_t full = length / n, rest = length % n;
      const index_t start = ((lo[std::size_t(d)] % n) + n) % n;
      if (full > 0) segments[std::size_t(d)].push_back({0, n, double(full)});
      if (rest > 0) {
        if (start + rest <= n) {
          segments[std::size_t(d)].push_back({start, start + rest, 1.0});
        } else {
          segments[std::size_t(d)].push_back({start, n, 1.0});
          segments[std::size_t(d)].push_back({0, start + rest - n, 1.0});
        }
      }
    }
    double total = 0;
    for (const Segment& x : segments[0])
      for (const Segment& y : segments[1])
        for (const Segment& z : segments[2])
          total += x.weight * y.weight * z.weight *
                   (at(x.b, y.b, z.b) - at(x.a, y.b, z.b) - at(x.b, y.a, z.b) - at(x.b, y.b, z.a) +
                    at(x.a, y.a, z.b) + at(x.a, y.b, z.a) + at(x.b, y.a, z.a) - at(x.a, y.a, z.a));
    return total;
  }

 private:
  double& at(index_t i, index_t j, index_t k) {
    return table_[std::size_t((i * (n_[1] + 1) + j) * (n_[2] + 1) + k)];
  }
  double at(index_t i, index_t j, index_t k) const {
    return table_[std::size_t((i * (n_[1] + 1) + j) * (n_[2] + 1) + k)];
  }
  std::array<index_t, 3> n_;
  std::vector<double> table_;
};

}  // namespace

std::vector<float> averaged_sar(const std::vector<float>& point_sar, const std::vector<float>& rho,
                                std::array<index_t, 3> n, double cell_size, double target_mass,
                                std::array<bool, 3> periodic) {
  bool incomplete = false;
  return averaged_sar_rows(point_sar, rho, n, cell_size, target_mass, periodic,
                           SarRows{0, n[0], false, false}, incomplete);
}

std::vector<float> averaged_sar_rows(const std::vector<float>& point_sar,
                                     const std::vector<float>& rho, std::array<index_t, 3> n,
                                     double cell_size, double target_mass,
                                     std::array<bool, 3> periodic, const SarRows& rows,
                                     bool& incomplete) {
  const std::size_t count = std::size_t(n[0] * n[1] * n[2]);
  require(rows.row_begin >= 0 && rows.row_begin <= rows.row_end && rows.row_end <= n[0],
          "SAR rows outside the window", "0 <= row_begin <= row_end <= cells along x");
  require(!(periodic[0] && (rows.open_low || rows.open_high)),
          "a SAR window with open sides along a periodic x", "x not periodic");
  require(point_sar.size() == count && rho.size() == count,
          "SAR averaging needs one point SAR and one density per cell",
          std::to_string(count) + " values each");
  require(cell_size > 0 && target_mass > 0, "SAR averaging cell size and mass must be positive",
          "> 0");
  const double volume = cell_size * cell_size * cell_size;
  std::vector<double> mass(count), power(count), background(count);
  for (std::size_t c = 0; c < count; ++c) {
    const bool tissue = rho[c] > 0;
    mass[c] = tissue ? double(rho[c]) * volume : 0.0;
    power[c] = tissue ? double(point_sar[c]) * mass[c] : 0.0;  // W
    background[c] = tissue ? 0.0 : 1.0;
  }
  const VolumeSums mass_sums(mass, n), power_sums(power, n), background_sums(background, n);
  const index_t row_cells = n[1] * n[2];
  std::vector<float> out(std::size_t((rows.row_end - rows.row_begin) * row_cells),
                         std::numeric_limits<float>::quiet_NaN());
  index_t largest = 0;  // half-width beyond which a cube would leave the grid on every axis
  for (int d = 0; d < 3; ++d) largest = std::max(largest, n[std::size_t(d)]);
  for (index_t i = rows.row_begin; i < rows.row_end; ++i)
    for (index_t j = 0; j < n[1]; ++j)
      for (index_t k = 0; k < n[2]; ++k) {
        const std::size_t c = std::size_t((i * n[1] + j) * n[2] + k);
        if (!(rho[c] > 0)) continue;
        const std::array<index_t, 3> centre{i, j, k};
        double inner_mass = 0, inner_power = 0;
        for (index_t m = 0; m <= 4 * largest; ++m) {
          std::array<index_t, 3> lo, hi;
          bool inside = true;
          for (int d = 0; d < 3; ++d) {
            lo[std::size_t(d)] = centre[std::size_t(d)] - m;
            hi[std::size_t(d)] = centre[std::size_t(d)] + m;
            if (!periodic[std::size_t(d)] &&
                (lo[std::size_t(d)] < 0 || hi[std::size_t(d)] >= n[std::size_t(d)]))
              inside = false;
          }
          if ((lo[0] < 0 && rows.open_low) || (hi[0] >= n[0] && rows.open_high)) {
            incomplete = true;  // the map goes on past the window: the answer is not here
            break;
          }
          if (!inside) break;  // no valid centred cube reaches the mass
          const double cube_mass = mass_sums.sum(lo, hi), cube_power = power_sums.sum(lo, hi);
          const double cells_in_cube = double(2 * m + 1) * double(2 * m + 1) * double(2 * m + 1);
          if (cube_mass >= target_mass) {
            if (background_sums.sum(lo, hi) > 0.1 * cells_in_cube) break;
            // The outer shell enters with the fraction that makes the mass exact.
            const double shell_mass = cube_mass - inner_mass;
            const double fraction = shell_mass > 0 ? (target_mass - inner_mass) / shell_mass : 0;
            const double p = inner_power + fraction * (cube_power - inner_power);
            out[std::size_t((i - rows.row_begin) * row_cells + j * n[2] + k)] =
                float(p / target_mass);
            break;
          }
          inner_mass = cube_mass;
          inner_power = cube_power;
        }
      }
  return out;
}

SarMaps compute_sar(const SarInput& in) {
  require(in.phasors != nullptr, "SAR needs phasors", "a PhasorSet with E phasors");
  const PhasorSet& p = *in.phasors;
  SarMaps maps;
  for (int d = 0; d < 3; ++d) {
    maps.cells[std::size_t(d)] = p.extent[std::size_t(d)] - 1;
    maps.origin[std::size_t(d)] = p.lo[std::size_t(d)];
  }
  const std::size_t count = std::size_t(maps.cells[0] * maps.cells[1] * maps.cells[2]);
  require(in.sigma.size() == count && in.rho.size() == count,
          "SAR needs sigma and rho per cell of the phasor box",
          std::to_string(count) + " values each");
  const double h = in.dx;
  maps.cell_size = h;
  require(h > 0 && std::abs(in.dy - h) <= 0.01 * h && std::abs(in.dz - h) <= 0.01 * h,
          "SAR averaging cubes need cubic cells",
          "dx = dy = dz (to 1 %); given " + std::to_string(in.dx) + ", " + std::to_string(in.dy) +
              ", " + std::to_string(in.dz));
  const std::vector<double> e2 = cell_centre_e_squared(p, in.frequency, in.amplitude_scale);
  maps.frequency = p.frequencies[std::size_t(in.frequency)];  // index checked just above
  const double volume = in.dx * in.dy * in.dz;
  maps.e_peak.resize(count);
  maps.point_sar.assign(count, 0.0f);
  for (std::size_t c = 0; c < count; ++c) {
    maps.e_peak[c] = float(std::sqrt(e2[c]));
    if (in.rho[c] > 0) {
      const double sar = double(in.sigma[c]) * e2[c] / (2 * double(in.rho[c]));
      maps.point_sar[c] = float(sar);
      maps.peak_point = std::max(maps.peak_point, double(maps.point_sar[c]));
      maps.tissue_mass += double(in.rho[c]) * volume;
      maps.absorbed_power += sar * double(in.rho[c]) * volume;
    }
  }
  maps.whole_body_sar = maps.tissue_mass > 0 ? maps.absorbed_power / maps.tissue_mass : 0;
  maps.sar_1g = averaged_sar(maps.point_sar, in.rho, maps.cells, h, 1e-3, in.periodic);
  maps.sar_10g = averaged_sar(maps.point_sar, in.rho, maps.cells, h, 1e-2, in.periodic);
  for (float v : maps.sar_1g)
    if (v == v) maps.peak_1g = std::max(maps.peak_1g, double(v));
  for (float v : maps.sar_10g)
    if (v == v) maps.peak_10g = std::max(maps.peak_10g, double(v));
  return maps;
}

void write_sar_vti(const std::string& path, const SarMaps& maps, double cell_size,
                   std::array<double, 3> origin) {
  image::ImageGrid grid;
  grid.points = {maps.cells[0], maps.cells[1], maps.cells[2]};
  grid.origin = origin;
  grid.spacing = {cell_size, cell_size, cell_size};
  const std::vector<float>* sources[4] = {&maps.e_peak, &maps.point_sar, &maps.sar_1g,
                                          &maps.sar_10g};
  const char* names[4] = {"E_peak", "SAR", "SAR_1g", "SAR_10g"};
  std::vector<image::ImageArray> arrays(4);
  for (int a = 0; a < 4; ++a) {
    arrays[std::size_t(a)].name = names[a];
    auto& out = arrays[std::size_t(a)].values;
    out.resize(std::size_t(grid.count()));
    // maps: z fastest; ImageData: x fastest.
    for (index_t i = 0; i < maps.cells[0]; ++i)
      for (index_t j = 0; j < maps.cells[1]; ++j)
        for (index_t k = 0; k < maps.cells[2]; ++k)
          out[std::size_t((k * maps.cells[1] + j) * maps.cells[0] + i)] =
              (*sources[a])[std::size_t(maps.cell(i, j, k))];
  }
  image::write_vti(path, grid, arrays);
}

void write_sar_png(const std::string& path, const SarMaps& maps) {
  const index_t j = maps.cells[1] / 2;
  std::vector<float> slice(std::size_t(maps.cells[0] * maps.cells[2]));
  double peak = 0;
  for (index_t k = 0; k < maps.cells[2]; ++k)
    for (index_t i = 0; i < maps.cells[0]; ++i) {
      const float v = maps.point_sar[std::size_t(maps.cell(i, j, k))];
      slice[std::size_t(k * maps.cells[0] + i)] = v;
      peak = std::max(peak, double(v));
    }
  require(maps.cell_size > 0, "SAR PNG needs the cell size", "maps from compute_sar");
  const double h = maps.cell_size;
  image::FigureSpec figure;
  figure.horizontal = {"x", (double(maps.origin[0]) + 0.5) * h, h};
  figure.vertical = {"z", (double(maps.origin[2]) + 0.5) * h, h};
  figure.quantity = "SAR";
  figure.unit = "W/kg";
  figure.value_min = 0, figure.value_max = peak > 0 ? peak : 1.0;
  figure.map = image::ColourMap::viridis;
  figure.title = "point SAR on the x-z slice y = " +
                 image::format_si((double(maps.origin[1] + j) + 0.5) * h, "m") +
                 ", f = " + image::format_si(maps.frequency, "Hz");
  image::write_figure_png(path, maps.cells[0], maps.cells[2], slice, figure);
}

void write_sar_summary(const std::string& path, const SarMaps& maps, double frequency) {
  std::ofstream out(path);
  if (!out) throw Error("cannot write SAR summary '" + path + "'", "a writable file path");
  out.precision(9);
  out << "quantity,value,unit\n";
  out << "frequency," << frequency << ",Hz\n";
  out << "tissue_mass," << maps.tissue_mass << ",kg\n";
  out << "absorbed_power," << maps.absorbed_power << ",W\n";
  out << "whole_body_sar," << maps.whole_body_sar << ",W/kg\n";
  out << "peak_point_sar," << maps.peak_point << ",W/kg\n";
  out << "peak_1g_sar," << maps.peak_1g << ",W/kg\n";
  out << "peak_10g_sar," << maps.peak_10g << ",W/kg\n";
}

}  // namespace ppkit::fdtd
