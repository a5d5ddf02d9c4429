// The SAR of a phasor box spread over MPI ranks (compute_sar_slabs,
// mpi_sar.hpp) equals compute_sar on the whole box (sar.hpp):
// `mpirun --oversubscribe -np 3 ppkit_fdtd_mpi_sar_test`. Fresh random phasors
// and tissue (1 g cubes 3 cells wide, 10 g cubes 5, 5% background), the box's
// planes cut among the ranks in several ways: even, uneven, a rank with only
// the last plane, a rank with none; periodic y and z once. Point SAR and
// |E| must be equal bit for bit (the same arithmetic per cell), the cube
// averages within 1e-6 relative with the same cells left without a cube
// (summed-volume tables over a window round differently), mass, power and
// peaks within 1e-12; each rank's own rows (maps not gathered) equal the
// serial maps' rows. Exit status 0 when every check passes on every rank.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "ppkit/fdtd/mpi_sar.hpp"

namespace {
using namespace ppkit::fdtd;

struct Case {
  std::string name;
  std::vector<index_t> cuts;  // ranks + 1 node planes, box-relative
  std::array<bool, 3> periodic{false, false, false};
};

double max_relative(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 1;
  double scale = 0, worst = 0;
  for (float v : b)
    if (!std::isnan(v)) scale = std::max(scale, double(std::abs(v)));
  for (std::size_t n = 0; n < a.size(); ++n) {
    if (std::isnan(a[n]) != std::isnan(b[n])) return 1;  // a cube in one map only
    if (std::isnan(a[n])) continue;
    worst = std::max(worst, std::abs(double(a[n]) - b[n]) / (scale > 0 ? scale : 1));
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  unsigned seed = 0;
  if (rank == 0) seed = unsigned(std::random_device{}());
  MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
  std::mt19937 rng(seed);

  // The whole box: nodes lo + [0, extent), two frequencies, random E phasors.
  PhasorSet whole;
  whole.lo = {3, 1, 2};
  whole.extent = {15, 9, 8};
  whole.frequencies = {1e9, 2e9};
  std::normal_distribution<float> phasor(0.0f, 1.0f);
  whole.re.resize(std::size_t(whole.box_nodes()) * 12);
  whole.im.resize(whole.re.size());
  for (auto& v : whole.re) v = phasor(rng);
  for (auto& v : whole.im) v = phasor(rng);
  SarInput in;
  in.frequency = 1;
  in.amplitude_scale = 3.5;
  in.dx = in.dy = in.dz = 1e-3;
  const index_t cells = (whole.extent[0] - 1) * (whole.extent[1] - 1) * (whole.extent[2] - 1);
  std::uniform_real_distribution<float> sigma(0.2f, 1.5f), rho(0.8e5f, 1.2e5f), u(0.0f, 1.0f);
  for (index_t c = 0; c < cells; ++c) {
    in.sigma.push_back(sigma(rng));
    in.rho.push_back(u(rng) < 0.05f ? 0.0f : rho(rng));
  }

  const index_t planes = whole.extent[0];
  std::vector<Case> cases;
  auto even = [&](index_t n) {
    std::vector<index_t> cuts;
    for (int r = 0; r <= ranks; ++r) cuts.push_back(n * r / ranks);
    return cuts;
  };
  cases.push_back({"even", even(planes)});
  cases.push_back({"even, periodic y and z", even(planes), {false, true, true}});
  if (ranks >= 2) {
    std::vector<index_t> last_plane_alone = even(planes - 1);
    last_plane_alone.back() = planes;  // the last rank holds its share and the last plane
    last_plane_alone[std::size_t(ranks) - 1] = planes - 1;
    cases.push_back({"last rank holds only the last plane", last_plane_alone});
    std::vector<index_t> first_empty(std::size_t(ranks) + 1, 0);
    for (int r = 1; r <= ranks; ++r) first_empty[std::size_t(r)] = (planes * (r - 1)) / (ranks - 1);
    cases.push_back({"first rank holds nothing", first_empty});
    std::vector<index_t> uneven = even(planes);
    uneven[1] = 2;  // rank 0 holds two planes: every cube crosses its window
    cases.push_back({"uneven", uneven});
  }

  int failures = 0;
  for (const Case& c : cases) {
    SarInput serial_in = in;
    serial_in.phasors = &whole;
    serial_in.periodic = c.periodic;
    const SarMaps serial = compute_sar(serial_in);
    std::vector<index_t> plane_begin;
    for (index_t cut : c.cuts) plane_begin.push_back(whole.lo[0] + cut);
    // This rank's planes of the box, as the slabs hold them.
    PhasorSet local;
    local.lo = {plane_begin[std::size_t(rank)], whole.lo[1], whole.lo[2]};
    local.extent = {plane_begin[std::size_t(rank) + 1] - local.lo[0], whole.extent[1],
                    whole.extent[2]};
    local.frequencies = whole.frequencies;
    local.re.resize(std::size_t(local.box_nodes()) * 12);
    local.im.resize(local.re.size());
    for (int f = 0; f < 2; ++f)
      for (int q = 0; q < 6; ++q)
        for (index_t i = 0; i < local.extent[0]; ++i)
          for (index_t j = 0; j < local.extent[1]; ++j)
            for (index_t k = 0; k < local.extent[2]; ++k) {
              const index_t x = local.lo[0] + i, y = local.lo[1] + j, z = local.lo[2] + k;
              local.re[std::size_t(local.at(f, q, x, y, z))] =
                  whole.re[std::size_t(whole.at(f, q, x, y, z))];
              local.im[std::size_t(local.at(f, q, x, y, z))] =
                  whole.im[std::size_t(whole.at(f, q, x, y, z))];
            }
    SarInput spread_in = in;
    spread_in.periodic = c.periodic;
    const SarMaps gathered = compute_sar_slabs(MPI_COMM_WORLD, local, plane_begin, spread_in, true);
    const SarMaps own = compute_sar_slabs(MPI_COMM_WORLD, local, plane_begin, spread_in, false);

    // Every rank: its own rows against the serial maps' rows.
    const index_t row = serial.cells[1] * serial.cells[2];
    const index_t first_row = own.origin[0] - serial.origin[0];
    auto rows_of = [&](const std::vector<float>& v) {
      const auto b = v.begin() + std::ptrdiff_t(first_row * row);
      return std::vector<float>(b, b + std::ptrdiff_t(own.cells[0] * row));
    };
    const bool own_ok = own.cells[1] == serial.cells[1] && own.cells[2] == serial.cells[2] &&
                        first_row >= 0 && first_row + own.cells[0] <= serial.cells[0] &&
                        own.point_sar == rows_of(serial.point_sar) &&
                        own.e_peak == rows_of(serial.e_peak) &&
                        max_relative(own.sar_1g, rows_of(serial.sar_1g)) < 1e-6 &&
                        max_relative(own.sar_10g, rows_of(serial.sar_10g)) < 1e-6;
    int bad = own_ok ? 0 : 1, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank != 0) continue;
    auto check = [&](bool ok, const std::string& what, double value) {
      std::printf("%s %s: %g (%s, %d ranks, seed %u)\n", ok ? "PASS" : "FAIL", what.c_str(), value,
                  c.name.c_str(), ranks, seed);
      failures += ok ? 0 : 1;
    };
    std::size_t averaged = 0;
    for (float v : serial.sar_10g) averaged += std::isnan(v) ? 0 : 1;
    check(gathered.point_sar == serial.point_sar && gathered.e_peak == serial.e_peak,
          "point SAR and |E| equal bit for bit", 0);
    check(max_relative(gathered.sar_1g, serial.sar_1g) < 1e-6 && serial.peak_1g > 0, "1 g SAR",
          max_relative(gathered.sar_1g, serial.sar_1g));
    check(max_relative(gathered.sar_10g, serial.sar_10g) < 1e-6 && averaged > 0,
          "10 g SAR (" + std::to_string(averaged) + " cells with a cube)",
          max_relative(gathered.sar_10g, serial.sar_10g));
    const double summary = std::max({std::abs(gathered.tissue_mass / serial.tissue_mass - 1),
                                     std::abs(gathered.absorbed_power / serial.absorbed_power - 1),
                                     std::abs(gathered.peak_1g / serial.peak_1g - 1),
                                     std::abs(gathered.peak_10g / serial.peak_10g - 1),
                                     std::abs(gathered.peak_point / serial.peak_point - 1)});
    check(summary < 1e-12 && gathered.cells == serial.cells && gathered.origin == serial.origin,
          "mass, power, peaks and map geometry", summary);
    check(any_bad == 0, "every rank's own rows (maps not gathered)", double(any_bad));
  }
  MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
