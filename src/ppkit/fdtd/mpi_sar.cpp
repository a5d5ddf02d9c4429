// SAR of a phasor box spread over MPI ranks (mpi_sar.hpp).
#include "ppkit/fdtd/mpi_sar.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "ppkit/core/error.hpp"

namespace ppkit::fdtd {
namespace {

// Cell rows [begin, end) of the box (box-relative) whose lower x plane a rank holds.
struct Rows {
  index_t begin = 0, end = 0;
  bool empty() const { return end <= begin; }
};

int checked_count(std::size_t n, const char* what) {
  require(n < std::size_t(INT_MAX), std::string("too many ") + what + " for one MPI message",
          "fewer cells per rank (more ranks)");
  return int(n);
}

}  // namespace

SarMaps compute_sar_slabs(MPI_Comm comm, const PhasorSet& local,
                          const std::vector<index_t>& plane_begin, const SarInput& in,
                          bool gather_maps) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  require(plane_begin.size() == std::size_t(ranks) + 1,
          "distributed SAR needs the first node plane of every rank",
          std::to_string(ranks + 1) + " plane boundaries");
  for (int r = 0; r < ranks; ++r)
    require(plane_begin[std::size_t(r)] <= plane_begin[std::size_t(r) + 1],
            "distributed SAR plane boundaries must ascend", "plane_begin[r] <= plane_begin[r + 1]");
  const index_t x0 = plane_begin.front();
  const std::array<index_t, 3> cells{plane_begin.back() - x0 - 1, local.extent[1] - 1,
                                     local.extent[2] - 1};
  require(cells[0] >= 1 && cells[1] >= 1 && cells[2] >= 1, "phasor box holds no whole cell",
          "a box of at least 2 nodes per axis");
  require(local.lo[0] == plane_begin[std::size_t(rank)] &&
              local.extent[0] == plane_begin[std::size_t(rank) + 1] - local.lo[0],
          "this rank's phasors are not its planes of the box",
          "planes [plane_begin[rank], plane_begin[rank + 1])");
  require(in.frequency >= 0 && std::size_t(in.frequency) < local.frequencies.size(),
          "SAR frequency index " + std::to_string(in.frequency) + " is out of range",
          "0.." + std::to_string(int(local.frequencies.size()) - 1));
  const double h = in.dx;
  require(h > 0 && std::abs(in.dy - h) <= 0.01 * h && std::abs(in.dz - h) <= 0.01 * h,
          "SAR averaging cubes need cubic cells", "dx = dy = dz (to 1 %)");
  require(!in.periodic[0], "distributed SAR with periodic x (the slab axis)",
          "periodic y and z only");
  const index_t row = cells[1] * cells[2];
  const std::size_t count = std::size_t(cells[0] * row);
  require(in.sigma.size() == count && in.rho.size() == count,
          "SAR needs sigma and rho per cell of the phasor box",
          std::to_string(count) + " values each");

  std::vector<Rows> rows(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    Rows& w = rows[std::size_t(r)];
    w.begin = plane_begin[std::size_t(r)] - x0;
    w.end = std::max(w.begin, std::min(plane_begin[std::size_t(r) + 1] - x0, cells[0]));
  }
  const Rows mine = rows[std::size_t(rank)];

  // The E phasors of the node plane after a rank's planes, from the next rank
  // holding planes (a rank's last cell row needs it), packed as
  // [component 0..2][re, im][j, k] of frequency in.frequency.
  const index_t plane_nodes = local.extent[1] * local.extent[2];
  const std::size_t plane_values = std::size_t(6 * plane_nodes);
  auto next_holder = [&](int r) {
    for (int s = r + 1; s < ranks; ++s)
      if (plane_begin[std::size_t(s)] < plane_begin[std::size_t(s) + 1]) return s;
    return -1;
  };
  auto previous_holder = [&](int r) {
    for (int s = r - 1; s >= 0; --s)
      if (plane_begin[std::size_t(s)] < plane_begin[std::size_t(s) + 1]) return s;
    return -1;
  };
  const bool holds_planes = local.extent[0] > 0;
  std::vector<float> next_plane;
  std::vector<MPI_Request> requests;
  std::vector<float> first_plane;
  if (holds_planes && previous_holder(rank) >= 0) {
    first_plane.resize(plane_values);
    for (int c = 0; c < 3; ++c)
      for (index_t n = 0; n < plane_nodes; ++n) {
        const std::size_t q =
            std::size_t(local.at(in.frequency, c, local.lo[0], local.lo[1], local.lo[2]) + n);
        first_plane[std::size_t((2 * c) * plane_nodes + n)] = local.re[q];
        first_plane[std::size_t((2 * c + 1) * plane_nodes + n)] = local.im[q];
      }
    requests.emplace_back();
    MPI_Isend(first_plane.data(), checked_count(plane_values, "phasors"), MPI_FLOAT,
              previous_holder(rank), 61, comm, &requests.back());
  }
  const bool needs_next = holds_planes && next_holder(rank) >= 0;
  if (needs_next) {
    next_plane.resize(plane_values);
    requests.emplace_back();
    MPI_Irecv(next_plane.data(), checked_count(plane_values, "phasors"), MPI_FLOAT,
              next_holder(rank), 61, comm, &requests.back());
  }
  if (!requests.empty()) MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);

  SarMaps maps;
  maps.cells = {mine.end - mine.begin, cells[1], cells[2]};
  maps.origin = {x0 + mine.begin, local.lo[1], local.lo[2]};
  maps.cell_size = h;
  maps.frequency = local.frequencies[std::size_t(in.frequency)];
  const std::size_t owned = std::size_t((mine.end - mine.begin) * row);
  maps.e_peak.assign(owned, 0.0f);
  maps.point_sar.assign(owned, 0.0f);
  double sums[2] = {0, 0};  // tissue mass, absorbed power
  if (!mine.empty()) {
    // This rank's planes plus the next one: the cells of its rows.
    PhasorSet own;
    own.lo = local.lo;
    own.extent = {local.extent[0] + (needs_next ? 1 : 0), local.extent[1], local.extent[2]};
    own.frequencies = {local.frequencies[std::size_t(in.frequency)]};
    own.re.assign(std::size_t(6 * own.box_nodes()), 0.0f);
    own.im.assign(own.re.size(), 0.0f);
    for (int c = 0; c < 3; ++c) {
      for (index_t i = 0; i < local.extent[0]; ++i)
        for (index_t n = 0; n < plane_nodes; ++n) {
          const std::size_t from =
              std::size_t(local.at(in.frequency, c, local.lo[0] + i, local.lo[1], local.lo[2]) + n);
          const std::size_t to = std::size_t(own.at(0, c, own.lo[0] + i, own.lo[1], own.lo[2]) + n);
          own.re[to] = local.re[from];
          own.im[to] = local.im[from];
        }
      if (needs_next)
        for (index_t n = 0; n < plane_nodes; ++n) {
          const std::size_t to =
              std::size_t(own.at(0, c, own.lo[0] + local.extent[0], own.lo[1], own.lo[2]) + n);
          own.re[to] = next_plane[std::size_t((2 * c) * plane_nodes + n)];
          own.im[to] = next_plane[std::size_t((2 * c + 1) * plane_nodes + n)];
        }
    }
    const std::vector<double> e2 = cell_centre_e_squared(own, 0, in.amplitude_scale);
    require(e2.size() == owned, "distributed SAR: the rank's rows and phasor planes disagree");
    const double volume = in.dx * in.dy * in.dz;
    for (std::size_t c = 0; c < owned; ++c) {
      const std::size_t g = std::size_t(mine.begin * row) + c;
      maps.e_peak[c] = float(std::sqrt(e2[c]));
      if (in.rho[g] > 0) {
        const double sar = double(in.sigma[g]) * e2[c] / (2 * double(in.rho[g]));
        maps.point_sar[c] = float(sar);
        sums[0] += double(in.rho[g]) * volume;
        sums[1] += sar * double(in.rho[g]) * volume;
      }
    }
  }
  double totals[2] = {0, 0};
  MPI_Allreduce(sums, totals, 2, MPI_DOUBLE, MPI_SUM, comm);
  maps.tissue_mass = totals[0];
  maps.absorbed_power = totals[1];
  maps.whole_body_sar = totals[0] > 0 ? totals[1] / totals[0] : 0;

  // Cube averages: this rank's rows inside a window of `halo` rows per side.
  auto window_of = [&](int r, index_t halo) {
    const Rows& w = rows[std::size_t(r)];
    if (w.empty()) return Rows{};
    return Rows{std::max<index_t>(0, w.begin - halo), std::min(cells[0], w.end + halo)};
  };
  auto overlap = [](const Rows& a, const Rows& b) {
    return Rows{std::max(a.begin, b.begin), std::min(a.end, b.end)};
  };
  auto averaged = [&](double target_mass) {
    for (index_t halo = 1;; halo *= 2) {
      // Point SAR of the window's rows from the ranks that own them.
      const Rows window = window_of(rank, halo);
      std::vector<int> send_counts(std::size_t(ranks), 0), send_offsets(std::size_t(ranks), 0),
          receive_counts(std::size_t(ranks), 0), receive_offsets(std::size_t(ranks), 0);
      std::vector<float> send;
      for (int s = 0; s < ranks; ++s) {
        const Rows give = overlap(mine, window_of(s, halo));
        send_offsets[std::size_t(s)] = checked_count(send.size(), "SAR values");
        if (!give.empty()) {
          const auto first =
              maps.point_sar.begin() + std::ptrdiff_t((give.begin - mine.begin) * row);
          send.insert(send.end(), first, first + std::ptrdiff_t((give.end - give.begin) * row));
        }
        send_counts[std::size_t(s)] =
            checked_count(send.size(), "SAR values") - send_offsets[std::size_t(s)];
        const Rows take = overlap(window, rows[std::size_t(s)]);
        receive_offsets[std::size_t(s)] =
            take.empty()
                ? 0
                : checked_count(std::size_t((take.begin - window.begin) * row), "SAR values");
        receive_counts[std::size_t(s)] =
            take.empty() ? 0
                         : checked_count(std::size_t((take.end - take.begin) * row), "SAR values");
      }
      const std::size_t window_values = std::size_t((window.end - window.begin) * row);
      std::vector<float> point(window_values, 0.0f);
      MPI_Alltoallv(send.data(), send_counts.data(), send_offsets.data(), MPI_FLOAT, point.data(),
                    receive_counts.data(), receive_offsets.data(), MPI_FLOAT, comm);
      bool incomplete = false;
      std::vector<float> out;
      if (!mine.empty()) {
        const auto rho_first = in.rho.begin() + std::ptrdiff_t(window.begin * row);
        const std::vector<float> rho(rho_first, rho_first + std::ptrdiff_t(window_values));
        const SarRows own_rows{mine.begin - window.begin, mine.end - window.begin, window.begin > 0,
                               window.end < cells[0]};
        out = averaged_sar_rows(point, rho, {window.end - window.begin, cells[1], cells[2]}, h,
                                target_mass, in.periodic, own_rows, incomplete);
      }
      int any = incomplete ? 1 : 0, again = 0;
      MPI_Allreduce(&any, &again, 1, MPI_INT, MPI_MAX, comm);
      if (!again) return out;
    }
  };
  maps.sar_1g = averaged(1e-3);
  maps.sar_10g = averaged(1e-2);
  double peaks[3] = {0, 0, 0}, global_peaks[3] = {0, 0, 0};
  for (float v : maps.sar_1g)
    if (v == v) peaks[0] = std::max(peaks[0], double(v));
  for (float v : maps.sar_10g)
    if (v == v) peaks[1] = std::max(peaks[1], double(v));
  for (float v : maps.point_sar) peaks[2] = std::max(peaks[2], double(v));
  MPI_Allreduce(peaks, global_peaks, 3, MPI_DOUBLE, MPI_MAX, comm);
  maps.peak_1g = global_peaks[0];
  maps.peak_10g = global_peaks[1];
  maps.peak_point = global_peaks[2];
  if (!gather_maps) return maps;

  // Every rank's rows to rank 0, in row order (rows are contiguous in a map).
  std::vector<int> counts(static_cast<std::size_t>(ranks)), offsets(counts.size());
  for (int r = 0; r < ranks; ++r) {
    const Rows& w = rows[std::size_t(r)];
    counts[std::size_t(r)] = checked_count(std::size_t((w.end - w.begin) * row), "SAR values");
    offsets[std::size_t(r)] = checked_count(std::size_t(w.begin * row), "SAR values");
  }
  SarMaps whole = maps;
  whole.cells = cells;
  whole.origin = {x0, local.lo[1], local.lo[2]};
  std::vector<float>* parts[4] = {&maps.e_peak, &maps.point_sar, &maps.sar_1g, &maps.sar_10g};
  std::vector<float>* gathered[4] = {&whole.e_peak, &whole.point_sar, &whole.sar_1g,
                                     &whole.sar_10g};
  for (int a = 0; a < 4; ++a) {
    gathered[a]->assign(rank == 0 ? count : 0, 0.0f);
    MPI_Gatherv(parts[a]->data(), checked_count(parts[a]->size(), "SAR values"), MPI_FLOAT,
                gathered[a]->data(), counts.data(), offsets.data(), MPI_FLOAT, 0, comm);
  }
  return rank == 0 ? whole : maps;
}

}  // namespace ppkit::fdtd
