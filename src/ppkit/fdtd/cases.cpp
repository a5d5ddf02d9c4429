#include "ppkit/fdtd/cases.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <type_traits>
#include <vector>

#include "ppkit/core/error.hpp"
#include "ppkit/core/memory_check.hpp"

namespace ppkit::fdtd {

FdtdStep::Problem make_cavity_problem(const std::array<double, 3>& size,
                                      const std::array<index_t, 3>& cells, std::int64_t steps) {
  FdtdStep::Problem p;
  p.grid = make_grid(cells[0], cells[1], cells[2], size[0], size[1], size[2], 0.99);
  p.steps = steps;
  // Off-centre source and probes (about 1/3 and 2/7 of each axis) couple to every low mode.
  auto at = [&](int axis, double fraction) {
    const index_t n = cells[std::size_t(axis)];
    return std::max<index_t>(1,
                             std::min<index_t>(n - 1, index_t(std::lround(fraction * double(n)))));
  };
  // Broadband: the gaussian's spectrum exp(-f^2 / (2 f0^2)) covers the lowest modes.
  const double lowest = cavity_frequency_continuum(size, {1, 1, 0});
  PointSource s;
  s.component = Component::ez;
  s.i = at(0, 0.31);
  s.j = at(1, 0.37);
  s.k = std::min<index_t>(cells[2] - 1, at(2, 0.23));
  s.waveform = Waveform::gaussian;
  s.frequency = 2 * lowest;
  s.amplitude = 1e-3;
  p.sources.push_back(s);
  for (Component c : {Component::ex, Component::ey, Component::ez}) {
    Probe pr;
    pr.component = c;
    pr.i = std::min<index_t>(cells[0] - 1, at(0, 0.71));
    pr.j = std::min<index_t>(cells[1] - 1, at(1, 0.29));
    pr.k = std::min<index_t>(cells[2] - 1, at(2, 0.62));
    p.probes.push_back(pr);
  }
  return p;
}

double cavity_frequency_continuum(const std::array<double, 3>& size,
                                  const std::array<int, 3>& mode) {
  double sum = 0;
  for (int u = 0; u < 3; ++u) sum += std::pow(mode[std::size_t(u)] / size[std::size_t(u)], 2);
  return 0.5 * speed_of_light * std::sqrt(sum);
}

double cavity_frequency_yee(const YeeGrid& g, const std::array<int, 3>& mode) {
  constexpr double pi = 3.14159265358979323846;
  const double d[3] = {g.dx, g.dy, g.dz};
  const double n[3] = {double(g.nx), double(g.ny), double(g.nz)};
  double sum = 0;
  for (int u = 0; u < 3; ++u) {
    const double k = pi * mode[std::size_t(u)] / (n[u] * d[u]);  // k_u = pi m_u / L_u
    sum += std::pow(std::sin(0.5 * k * d[u]) / d[u], 2);
  }
  const double s = speed_of_light * g.dt * std::sqrt(sum);
  return 2 * std::asin(s) / g.dt / (2 * pi);
}

FdtdStep::Problem make_dipole_problem(index_t n, double dx, int thickness, std::int64_t steps,
                                      const std::vector<index_t>& probe_distances) {
  FdtdStep::Problem p;
  p.grid = make_grid(n, n, n, double(n) * dx, double(n) * dx, double(n) * dx, 0.99);
  p.cpml.thickness = thickness;
  p.steps = steps;
  const index_t c = n / 2;
  PointSource s;
  s.component = Component::ez;
  s.i = s.j = s.k = c;
  s.waveform = Waveform::gaussian;
  // 20 cells per wavelength at 3 f0, where the gaussian's spectrum is down to 1%.
  s.frequency = speed_of_light / (20 * dx) / 3;
  s.amplitude = 1e-6;  // I dl in A m
  p.sources.push_back(s);
  require(n - thickness - c > 1,
          "a dipole cube of " + std::to_string(n) +
              " cells leaves no cell for a probe inside its " + std::to_string(thickness) +
              "-cell CPML",
          "cells >= 2 cpml + 4, e.g. " + std::to_string(2 * thickness + 24));
  for (index_t r : probe_distances) {
    require(c + r < n - thickness,
            "dipole probe " + std::to_string(r) + " cells away is inside the CPML",
            "distances < " + std::to_string(n - thickness - c));
    Probe pr;
    pr.component = Component::ez;
    pr.i = c + r;
    pr.j = c;
    pr.k = c;
    p.probes.push_back(pr);
  }
  return p;
}

FdtdStep::Problem make_benchmark_problem(index_t n, int thickness, std::int64_t steps) {
  FdtdStep::Problem p;
  const double dx = 1e-3;
  p.grid = make_grid(n, n, n, double(n) * dx, double(n) * dx, double(n) * dx, 0.99);
  p.cpml.thickness = thickness;
  p.steps = steps;
  PointSource s;
  s.component = Component::ez;
  s.i = n / 2;
  s.j = n / 3;
  s.k = n / 2;
  s.waveform = Waveform::ricker;
  s.frequency = speed_of_light / (20 * dx);
  s.amplitude = 1e-6;
  p.sources.push_back(s);
  return p;
}

// ---- JSON case files --------------------------------------------------------
namespace {
using nlohmann::json;

// A double in the fewest digits that tell it (%g), for messages.
std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

void check_keys(const json& obj, const std::set<std::string>& allowed, const std::string& where) {
  if (!obj.is_object()) throw Error(where + " must be a JSON object");
  std::string valid;
  for (const auto& k : allowed) valid += (valid.empty() ? "" : ", ") + k;
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (!allowed.count(it.key())) throw Error("unknown key '" + it.key() + "' in " + where, valid);
}

template <class T>
struct IsVector : std::false_type {};
template <class U>
struct IsVector<std::vector<U>> : std::true_type {};

// Whether a JSON value converts to T without leaving T's range: converting a
// float, or an integer outside T, to an integral T (or a double beyond FLT_MAX
// to float) is undefined behaviour, so such values are rejected first. Values
// of the wrong kind pass here and are reported by json::get.
template <class T>
bool representable(const json& v) {
  if constexpr (IsVector<T>::value) {
    if (v.is_array())
      for (const auto& e : v)
        if (!representable<typename T::value_type>(e)) return false;
    return true;
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (!v.is_number()) return true;
    if (v.is_number_float()) return false;
    if (v.is_number_unsigned())
      return v.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<T>::max());
    const std::int64_t i = v.get<std::int64_t>();
    if constexpr (std::is_unsigned_v<T>) return i >= 0;
    return i >= std::int64_t(std::numeric_limits<T>::min()) &&
           i <= std::int64_t(std::numeric_limits<T>::max());
  } else if constexpr (std::is_same_v<T, float>) {
    return !v.is_number() || std::abs(v.get<double>()) <= double(std::numeric_limits<float>::max());
  } else {
    return true;
  }
}

template <class T>
T get(const json& obj, const std::string& key, const std::string& where) {
  if (!obj.contains(key)) throw Error("missing key '" + key + "' in " + where);
  if (!representable<T>(obj.at(key)))
    throw Error("key '" + key + "' in " + where + " is out of range: " + obj.at(key).dump(),
                "whole numbers within range for counts and node indices, finite numbers "
                "within float range for fp32 values");
  try {
    return obj.at(key).get<T>();
  } catch (const json::exception&) {
    throw Error("key '" + key + "' in " + where + " has the wrong type: " + obj.at(key).dump());
  }
}

template <class T>
T get_or(const json& obj, const std::string& key, T fallback, const std::string& where) {
  return obj.contains(key) ? get<T>(obj, key, where) : fallback;
}

template <class T>
std::array<T, 3> triple(const json& obj, const std::string& key, const std::string& where) {
  const auto v = get<std::vector<T>>(obj, key, where);
  if (v.size() != 3) throw Error("key '" + key + "' in " + where + " needs 3 values", "[x, y, z]");
  return {v[0], v[1], v[2]};
}

// A node given as "node": [i, j, k] or "position": [x, y, z] metres (nearest node).
std::array<index_t, 3> node_of(const json& obj, const YeeGrid& g, const std::string& where) {
  if (obj.contains("node") == obj.contains("position"))
    throw Error(where + " needs exactly one of 'node' or 'position'",
                "\"node\": [i, j, k] or \"position\": [x, y, z]");
  if (obj.contains("node")) {
    const auto n = triple<std::int64_t>(obj, "node", where);
    return {n[0], n[1], n[2]};
  }
  const auto x = triple<double>(obj, "position", where);
  return {index_t(std::llround(x[0] / g.dx)), index_t(std::llround(x[1] / g.dy)),
          index_t(std::llround(x[2] / g.dz))};
}
}  // namespace

FdtdStep::Problem problem_from_json(const json& j, const std::string& where) {
  check_keys(j,
             {"grid", "steps", "energy_interval", "materials", "boxes", "cpml", "sources", "probes",
              "outputs", "snapshots", "plane_wave", "precision", "sar"},
             where);
  FdtdStep::Problem p;
  if (j.contains("precision")) {
    const std::string text = get<std::string>(j, "precision", where);
    try {
      p.precision = parse_precision(text);
    } catch (const Error& e) {
      throw Error("key 'precision' in " + where + ": " + e.problem(), e.valid());
    }
  }
  const json& grid =
      j.contains("grid") ? j.at("grid") : throw Error("missing key 'grid' in " + where);
  const std::string gw = where + " grid";
  check_keys(grid, {"cells", "size", "courant", "dt"}, gw);
  const auto cells = triple<std::int64_t>(grid, "cells", gw);
  const auto size = triple<double>(grid, "size", gw);
  if (grid.contains("courant") && grid.contains("dt"))
    throw Error("give either 'courant' or 'dt' in " + gw + ", not both");
  p.grid = make_grid(cells[0], cells[1], cells[2], size[0], size[1], size[2],
                     get_or<double>(grid, "courant", 0.99, gw));
  if (grid.contains("dt")) {
    p.grid.dt = get<double>(grid, "dt", gw);
    require(p.grid.courant_number() <= 1.0,
            "dt " + std::to_string(p.grid.dt) + " s in " + gw + " gives Courant number " +
                std::to_string(p.grid.courant_number()) + ", above the 3D stability limit",
            "dt <= " + std::to_string(p.grid.courant_limit()) + " s");
  }
  p.steps = get<std::int64_t>(j, "steps", where);
  p.energy_interval = get_or<std::int64_t>(j, "energy_interval", 0, where);

  std::vector<std::string> names{"vacuum"};
  if (j.contains("materials")) {
    for (const auto& m : j.at("materials")) {
      const std::string mw = where + " materials[" + std::to_string(names.size() - 1) + "]";
      check_keys(m, {"name", "eps_r", "mu_r", "sigma", "pec", "density"}, mw);
      Material mat;
      mat.eps_r = get_or<double>(m, "eps_r", 1.0, mw);
      mat.mu_r = get_or<double>(m, "mu_r", 1.0, mw);
      mat.sigma = get_or<double>(m, "sigma", 0.0, mw);
      mat.pec = get_or<bool>(m, "pec", false, mw);
      // The density only enters the SAR (case_sar_from_json); checked here so
      // that a case without a "sar" section does not carry a wrong one silently.
      const double density = get_or<double>(m, "density", 0.0, mw);
      require(std::isfinite(density) && density >= 0 && !(mat.pec && density > 0),
              "density " + number(density) + " kg/m^3 in " + mw,
              "a finite density >= 0 (kg/m^3) on a material that is not PEC");
      const auto name = get<std::string>(m, "name", mw);
      for (const auto& n : names)
        if (n == name) throw Error("material name '" + name + "' in " + mw + " is used twice");
      names.push_back(name);
      p.materials.push_back(mat);
    }
  }
  if (j.contains("boxes")) {
    // The boxes are painted into a per-node id array on the host, before any
    // variant checks its device: that array alone must fit the host's free memory.
    memory::require_fits("the material ids of the " + std::to_string(p.grid.nodes()) +
                             " nodes of " + gw + " (4 bytes each)",
                         4.0 * double(p.grid.nodes()), "host");
    p.material_id.assign(std::size_t(p.grid.nodes()), 0u);
    int b = 0;
    for (const auto& box : j.at("boxes")) {
      const std::string bw = where + " boxes[" + std::to_string(b++) + "]";
      check_keys(box, {"material", "min", "max"}, bw);
      const auto name = get<std::string>(box, "material", bw);
      std::uint32_t id = 0;
      bool found = false;
      std::string valid;
      for (std::size_t n = 0; n < names.size(); ++n) {
        valid += (valid.empty() ? "" : ", ") + names[n];
        if (names[n] == name) {
          id = std::uint32_t(n);
          found = true;
        }
      }
      if (!found) throw Error("unknown material '" + name + "' in " + bw, valid);
      const auto lo = triple<std::int64_t>(box, "min", bw),
                 hi = triple<std::int64_t>(box, "max", bw);
      const index_t n[3] = {p.grid.nx, p.grid.ny, p.grid.nz};
      for (int u = 0; u < 3; ++u)
        require(lo[std::size_t(u)] >= 0 && lo[std::size_t(u)] <= hi[std::size_t(u)] &&
                    hi[std::size_t(u)] <= n[u] + 1,
                "box " + bw + " lies outside the grid",
                "0 <= min <= max <= cells + 1 (node ranges [min, max))");
      for (index_t i = lo[0]; i < hi[0]; ++i)
        for (index_t jj = lo[1]; jj < hi[1]; ++jj)
          for (index_t k = lo[2]; k < hi[2]; ++k)
            p.material_id[std::size_t(p.grid.index(i, jj, k))] = id;
    }
  }
  if (j.contains("cpml")) {
    const std::string cw = where + " cpml";
    const json& c = j.at("cpml");
    check_keys(c, {"thickness", "order", "reflection", "kappa_max", "alpha_max", "alpha_order"},
               cw);
    p.cpml.thickness = get_or<int>(c, "thickness", 10, cw);
    p.cpml.grading_order = get_or<double>(c, "order", 3.0, cw);
    p.cpml.reflection = get_or<double>(c, "reflection", 1e-6, cw);
    p.cpml.kappa_max = get_or<double>(c, "kappa_max", 1.0, cw);
    p.cpml.alpha_max = get_or<double>(c, "alpha_max", 0.0, cw);
    p.cpml.alpha_order = get_or<double>(c, "alpha_order", 1.0, cw);
  }
  int n = 0;
  if (j.contains("sources"))
    for (const auto& s : j.at("sources")) {
      const std::string sw = where + " sources[" + std::to_string(n++) + "]";
      check_keys(
          s,
          {"component", "node", "position", "waveform", "frequency", "amplitude", "delay", "type"},
          sw);
      PointSource src;
      src.component = parse_component(get_or<std::string>(s, "component", "ez", sw));
      const auto node = node_of(s, p.grid, sw);
      src.i = node[0];
      src.j = node[1];
      src.k = node[2];
      src.waveform = parse_waveform(get_or<std::string>(s, "waveform", "gaussian", sw));
      src.frequency = get<double>(s, "frequency", sw);
      src.amplitude = get_or<double>(s, "amplitude", 1.0, sw);
      src.delay = get_or<double>(s, "delay", 0.0, sw);
      const auto type = get_or<std::string>(s, "type", "soft", sw);
      if (type != "soft" && type != "hard")
        throw Error("unknown source type '" + type + "' in " + sw, "soft, hard");
      src.hard = type == "hard";
      p.sources.push_back(src);
    }
  n = 0;
  if (j.contains("probes"))
    for (const auto& pj : j.at("probes")) {
      const std::string pw = where + " probes[" + std::to_string(n++) + "]";
      check_keys(pj, {"component", "node", "position", "name"}, pw);
      Probe pr;
      pr.component = parse_component(get<std::string>(pj, "component", pw));
      const auto node = node_of(pj, p.grid, pw);
      pr.i = node[0];
      pr.j = node[1];
      pr.k = node[2];
      pr.name = get_or<std::string>(pj, "name", "", pw);
      p.probes.push_back(pr);
    }
  n = 0;
  if (j.contains("snapshots")) {
    if (!j.at("snapshots").is_array())
      throw Error("snapshots in " + where + " must be a list",
                  "[{\"component\": \"ez\", \"normal\": \"z\", \"index\": 12, ...}]");
    for (const auto& sj : j.at("snapshots")) {
      const std::string sw = where + " snapshots[" + std::to_string(n++) + "]";
      check_keys(sj, {"component", "normal", "index", "every", "vtk", "png", "range", "colour_map"},
                 sw);
      PlaneSnapshot snap;
      snap.component = parse_component(get<std::string>(sj, "component", sw));
      snap.normal = parse_axis(get<std::string>(sj, "normal", sw));
      snap.index = get<std::int64_t>(sj, "index", sw);
      snap.every = get_or<std::int64_t>(sj, "every", 1, sw);
      snap.vtk = get_or<std::string>(sj, "vtk", "", sw);
      snap.png = get_or<std::string>(sj, "png", "", sw);
      snap.colour_map = get_or<std::string>(sj, "colour_map", "coolwarm", sw);
      if (sj.contains("range")) {
        const auto range = get<std::vector<double>>(sj, "range", sw);
        if (range.size() != 2)
          throw Error("key 'range' in " + sw + " needs 2 values", "[min, max] with min < max");
        snap.png_range = {range[0], range[1]};
        require(range[0] < range[1], "range in " + sw + " is empty", "[min, max] with min < max");
      }
      if (snap.vtk.empty() && snap.png.empty())
        throw Error(sw + " writes nothing", "\"vtk\": \"stem\" and/or \"png\": \"stem\"");
      validate(snap, p.grid);
      p.snapshots.push_back(snap);
    }
  }
  if (j.contains("plane_wave")) {
    const std::string ww = where + " plane_wave";
    const json& pw = j.at("plane_wave");
    check_keys(pw,
               {"box_min", "box_max", "direction", "polarisation", "waveform", "frequency",
                "amplitude", "delay"},
               ww);
    PlaneWaveSource w;
    const auto lo = triple<std::int64_t>(pw, "box_min", ww),
               hi = triple<std::int64_t>(pw, "box_max", ww);
    w.box_min = {lo[0], lo[1], lo[2]};
    w.box_max = {hi[0], hi[1], hi[2]};
    const auto direction = get<std::string>(pw, "direction", ww);
    if (direction.size() != 2 || (direction[0] != '+' && direction[0] != '-'))
      throw Error("unknown plane wave direction '" + direction + "' in " + ww,
                  "+x, -x, +y, -y, +z, -z");
    w.direction = direction[0] == '+' ? 1 : -1;
    w.axis = parse_axis(direction.substr(1));
    w.polarisation = triple<double>(pw, "polarisation", ww);
    w.waveform = parse_waveform(get_or<std::string>(pw, "waveform", "gaussian", ww));
    w.frequency = get<double>(pw, "frequency", ww);
    w.amplitude = get_or<double>(pw, "amplitude", 1.0, ww);
    w.delay = get_or<double>(pw, "delay", 0.0, ww);
    p.plane_waves.push_back(w);
  }
  if (j.contains("sar")) {
    // The phasors the SAR is computed from; the rest of the section is read
    // by case_sar_from_json.
    const std::string sw = where + " sar";
    const json& s = j.at("sar");
    check_keys(s, {"frequency", "box_min", "box_max", "interval", "summary", "vtk", "png"}, sw);
    p.phasors.frequencies = {get<double>(s, "frequency", sw)};
    if (s.contains("box_min") != s.contains("box_max"))
      throw Error("only one of box_min and box_max in " + sw,
                  "both (a node box [box_min, box_max)) or neither (the whole grid)");
    if (s.contains("box_min")) {
      const auto lo = triple<std::int64_t>(s, "box_min", sw),
                 hi = triple<std::int64_t>(s, "box_max", sw);
      p.phasors.box.lo = {lo[0], lo[1], lo[2]};
      p.phasors.box.hi = {hi[0], hi[1], hi[2]};
    }
    p.phasors.interval = get_or<std::int64_t>(s, "interval", 1, sw);
    NodeBox box;
    try {
      box = resolve_box(p.phasors, p.grid);  // inside the grid: the differences below fit
    } catch (const Error& e) {
      throw Error(sw + ": " + e.problem(), e.valid());
    }
    for (int u = 0; u < 3; ++u)
      require(box.hi[std::size_t(u)] - box.lo[std::size_t(u)] >= 2,
              "box_min " + std::to_string(box.lo[std::size_t(u)]) + ", box_max " +
                  std::to_string(box.hi[std::size_t(u)]) + " along axis " + std::to_string(u) +
                  " in " + sw + " hold no whole cell",
              "box_max >= box_min + 2 on every axis (the SAR is taken per cell)");
    // Samples every interval steps resolve frequencies below their Nyquist frequency.
    const double nyquist = 0.5 / (double(p.phasors.interval) * p.grid.dt);
    require(p.phasors.frequencies[0] < nyquist,
            "SAR frequency " + number(p.phasors.frequencies[0]) + " Hz in " + sw +
                " at or above the Nyquist frequency of samples every " +
                std::to_string(p.phasors.interval) + " steps of " + number(p.grid.dt) + " s",
            "a frequency below " + number(nyquist) + " Hz (or a smaller interval)");
  }
  if (j.contains("outputs")) check_keys(j.at("outputs"), {"probes", "energy"}, where + " outputs");
  validate(p);
  return p;
}

namespace {
// A SAR case's pulse is summed step by step (source_spectrum) before the
// run starts; this many steps take about 0.1 s.
constexpr std::int64_t max_pulse_steps = 10'000'000;

// The steps [first, end) of a run whose J times (n + 1/2) dt fall where the
// source's waveform is not zero to double precision: every waveform
// (sources.hpp) is below 1e-40 before delay - 15/f and after delay + 20/f.
std::pair<std::int64_t, std::int64_t> pulse_steps(const FdtdStep::Problem& p,
                                                  const PointSource& s) {
  const double dt = p.grid.dt;
  const double first = std::max(0.0, std::floor((s.delay - 15 / s.frequency) / dt - 0.5));
  // A span past max_pulse_steps is refused by case_sar_from_json; capping it
  // (and both ends below 2^63) keeps the conversions below in range.
  const double end = std::min({double(p.steps), std::ceil((s.delay + 20 / s.frequency) / dt),
                               first + 2.0 * double(max_pulse_steps), 9.0e18});
  if (first >= end) return {0, 0};
  return {std::int64_t(first), std::int64_t(end)};
}
}  // namespace

std::complex<double> source_spectrum(const FdtdStep::Problem& p, double frequency) {
  require(!p.sources.empty(), "no point source", "at least one soft source");
  const PointSource& s = p.sources.front();
  std::complex<double> sum = 0;
  const double dt = p.grid.dt, w = 2 * 3.14159265358979323846 * frequency;
  const auto [first, end] = pulse_steps(p, s);
  for (std::int64_t n = first; n < end; ++n) {
    const double t = (double(n) + 0.5) * dt;
    sum += dt * waveform_value(s.waveform, s.frequency, t - s.delay) *
           std::exp(std::complex<double>(0, -w * t));
  }
  return sum;
}

std::optional<CaseSar> case_sar_from_json(const json& j, const FdtdStep::Problem& p,
                                          const std::string& where) {
  if (!j.contains("sar")) return std::nullopt;
  const std::string sw = where + " sar";
  const json& s = j.at("sar");
  CaseSar sar;
  sar.frequency = get<double>(s, "frequency", sw);
  sar.summary = get_or<std::string>(s, "summary", "", sw);
  sar.vtk = get_or<std::string>(s, "vtk", "", sw);
  sar.png = get_or<std::string>(s, "png", "", sw);
  const YeeGrid& g = p.grid;
  const double h = g.dx;
  require(std::abs(g.dy - h) <= 0.01 * h && std::abs(g.dz - h) <= 0.01 * h,
          "cells of " + number(g.dx) + " x " + number(g.dy) + " x " + number(g.dz) +
              " m for the SAR in " + sw,
          "cubic cells (dx = dy = dz to 1 %): the 1 g and 10 g averages take cubes of cells");
  // The continuous-wave scaling divides E by the sources' common spectrum.
  require(!p.sources.empty(), "the SAR in " + sw + " needs a source",
          "one or more soft point sources");
  require(p.plane_waves.empty(), "a plane wave in " + where + " with a \"sar\" section",
          "soft point sources only: the SAR is scaled by their spectrum, which a plane wave "
          "does not share");
  const PointSource& first = p.sources.front();
  for (std::size_t n = 0; n < p.sources.size(); ++n) {
    const PointSource& src = p.sources[n];
    require(!src.hard, where + " sources[" + std::to_string(n) + "] is a hard source",
            "soft sources only with a \"sar\" section (the SAR is scaled to their current "
            "moments I dl running as sinusoids)");
    require(src.waveform == first.waveform && src.frequency == first.frequency &&
                src.delay == first.delay,
            where + " sources[" + std::to_string(n) +
                "] differs from sources[0] in waveform, frequency or delay",
            "sources with one waveform, frequency and delay (their amplitudes may differ) with "
            "a \"sar\" section");
  }
  // W(f) against its bound sum |dt w|: a frequency far outside the pulse's
  // band would divide noise by almost nothing.
  const auto [pulse_first, pulse_end] = pulse_steps(p, first);
  require(pulse_end - pulse_first <= max_pulse_steps,
          "the sources' pulse spans " + std::to_string(pulse_end - pulse_first) +
              " steps of the run (35 / (f dt) with f = " + number(first.frequency) + " Hz) in " +
              sw,
          "a pulse of at most " + std::to_string(max_pulse_steps) +
              " steps: a higher source frequency or larger cells");
  double bound = 0;
  for (std::int64_t n = pulse_first; n < pulse_end; ++n)
    bound += g.dt * std::abs(waveform_value(first.waveform, first.frequency,
                                            (double(n) + 0.5) * g.dt - first.delay));
  require(bound > 0,
          "the sources' pulse (delay " + number(first.delay) + " s) lies outside the " +
              std::to_string(p.steps) + " steps of the run in " + sw,
          "a delay that puts the pulse inside the run");
  // The pulse must be over before the run ends (and the fields rung down,
  // which only a longer run can show): W and E are cut at the last step.
  double peak = 0;
  for (std::int64_t n = pulse_first; n < pulse_end; ++n)
    peak = std::max(peak, std::abs(waveform_value(first.waveform, first.frequency,
                                                  (double(n) + 0.5) * g.dt - first.delay)));
  const double pulse_over = first.delay + 20 / first.frequency;
  for (std::int64_t n = p.steps; double(n) * g.dt < pulse_over && n - p.steps < max_pulse_steps;
       ++n)
    require(std::abs(waveform_value(first.waveform, first.frequency,
                                    (double(n) + 0.5) * g.dt - first.delay)) <= 1e-4 * peak,
            "the run of " + std::to_string(p.steps) + " steps in " + where +
                " ends before the sources' pulse is over (at step " + std::to_string(n) +
                " it is still above 1e-4 of its peak)",
            "more steps with a \"sar\" section: the pulse and then the fields' ring-down");
  const double spectrum = std::abs(source_spectrum(p, sar.frequency));
  require(spectrum > 1e-3 * bound,
          "the sources' " + std::string(to_string(first.waveform)) + " at " +
              number(first.frequency) +
              " Hz carries almost nothing at the SAR "
              "frequency " +
              number(sar.frequency) + " Hz in " + sw,
          "a source frequency near the SAR frequency (|W(f)| is " + number(spectrum / bound) +
              " of its bound; at least 1e-3)");
  // Samples every `interval` steps fold the frequencies k / (interval dt) +- f
  // below the grid's own Nyquist frequency 1 / (2 dt) onto f: the pulse must
  // carry next to nothing there. The first eight folds are checked; the
  // waveforms' spectra fall off above their peak, so higher ones carry less.
  const std::int64_t interval = p.phasors.interval;
  const double fold = 1 / (double(interval) * g.dt), grid_nyquist = 0.5 / g.dt;
  for (int k = 1; interval > 1 && k <= 8 && k * fold - sar.frequency < grid_nyquist; ++k)
    for (const double alias : {k * fold - sar.frequency, k * fold + sar.frequency}) {
      if (alias >= grid_nyquist) continue;
      const double folded = std::abs(source_spectrum(p, alias));
      require(folded <= 1e-3 * spectrum,
              "interval " + std::to_string(interval) + " in " + sw + " folds " + number(alias) +
                  " Hz, where the pulse carries " + number(folded / spectrum) +
                  " of its spectrum at the SAR frequency, onto it",
              "a smaller interval (the pulse's spectrum below 1e-3 of |W(f)| at k / (interval "
              "dt) +- f), or interval 1");
    }
  sar.density.assign(p.materials.size(), 0.0);  // id 0 is vacuum, case materials from 1
  if (j.contains("materials")) {
    std::size_t id = 1;
    for (const auto& m : j.at("materials"))
      sar.density[id++] = get_or<double>(m, "density", 0.0, where + " materials");
  }
  const NodeBox box = resolve_box(p.phasors, g);
  memory::require_fits("the conductivity and density of the SAR box's cells (8 bytes each)",
                       8.0 * double(box.hi[0] - box.lo[0] - 1) * double(box.hi[1] - box.lo[1] - 1) *
                           double(box.hi[2] - box.lo[2] - 1),
                       "host");
  const SarInput cells = case_sar_input(p, sar, nullptr);
  require(std::any_of(cells.rho.begin(), cells.rho.end(), [](float r) { return r > 0; }),
          "no cell of the SAR box in " + sw + " holds tissue",
          "a material with \"density\" (kg/m^3) on all eight corners of some cell of the box");
  return sar;
}

namespace {
// The material of a cell for the SAR: the tissue on most of its eight
// corner nodes (the first corner's on a tie, corners in (i, j, k) order), or
// background (-1) when any corner has no density: the node materials put
// the tissue surface on the last tissue node plane, so a cell with a
// background corner lies outside it.
int cell_material(const FdtdStep::Problem& p, const std::vector<double>& density, index_t i,
                  index_t j, index_t k) {
  const YeeGrid& g = p.grid;
  std::uint32_t ids[8];
  for (int c = 0; c < 8; ++c) {
    ids[c] =
        p.material_id.empty()
            ? 0
            : p.material_id[std::size_t(g.index(i + (c >> 2), j + ((c >> 1) & 1), k + (c & 1)))];
    if (density[ids[c]] <= 0) return -1;
  }
  int best = 0, best_count = 0;
  for (int c = 0; c < 8; ++c) {
    const int count = int(std::count(ids, ids + 8, ids[c]));
    if (count > best_count) best = c, best_count = count;
  }
  return int(ids[best]);
}
}  // namespace

SarInput case_sar_input(const FdtdStep::Problem& p, const CaseSar& sar, const PhasorSet* phasors) {
  const YeeGrid& g = p.grid;
  const NodeBox box = resolve_box(p.phasors, g);
  SarInput in;
  in.phasors = phasors;
  in.amplitude_scale = 1 / std::abs(source_spectrum(p, sar.frequency));
  in.dx = g.dx, in.dy = g.dy, in.dz = g.dz;
  in.periodic = p.periodic;
  for (index_t i = box.lo[0]; i + 1 < box.hi[0]; ++i)
    for (index_t j = box.lo[1]; j + 1 < box.hi[1]; ++j)
      for (index_t k = box.lo[2]; k + 1 < box.hi[2]; ++k) {
        const int id = cell_material(p, sar.density, i, j, k);
        in.sigma.push_back(id < 0 ? 0.0f : float(p.materials[std::size_t(id)].sigma));
        in.rho.push_back(id < 0 ? 0.0f : float(sar.density[std::size_t(id)]));
      }
  return in;
}

std::string read_case_text(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error("cannot read case file '" + path + "'", "a readable JSON file");
  std::ostringstream text;
  text << f.rdbuf();
  return text.str();
}

CaseFile case_from_text(const std::string& text, const std::string& where) {
  json j;
  try {
    j = json::parse(text);
  } catch (const std::exception& e) {
    throw Error("'" + where + "' is not valid JSON: " + e.what());
  }
  CaseFile c;
  c.problem = problem_from_json(j, where);
  const json outputs = j.value("outputs", json::object());
  for (const char* key : {"probes", "energy"})
    if (outputs.contains(key) && !outputs[key].is_string())
      throw Error(std::string("outputs.") + key + " in " + where + " must be a file name",
                  "\"out.csv\"");
  c.probes_path = outputs.value("probes", "");
  c.energy_path = outputs.value("energy", "");
  c.sar = case_sar_from_json(j, c.problem, where);
  return c;
}

std::string energy_csv(const FdtdStep::Problem& p, const FdtdStep::Result& r) {
  std::ostringstream out;
  out.precision(9);
  out << std::scientific << "step,time,energy\n";
  for (std::size_t n = 0; n < r.energy.size(); ++n)
    out << r.energy_steps[n] + 1 << ',' << double(r.energy_steps[n] + 1) * p.grid.dt << ','
        << r.energy[n] << '\n';
  return out.str();
}

std::string probes_csv(const FdtdStep::Problem& p, const FdtdStep::Result& r) {
  std::ostringstream out;
  const bool fp64 = !r.probe_values_fp64.empty();
  out.precision(fp64 ? 17 : 9);  // enough digits to read the values back exactly
  out << "time";
  for (const auto& pr : p.probes) {
    if (!pr.name.empty())
      out << ',' << pr.name;
    else
      out << ',' << to_string(pr.component) << '(' << pr.i << ' ' << pr.j << ' ' << pr.k << ')';
  }
  out << '\n';
  const std::size_t steps = std::size_t(p.steps);
  for (std::size_t s = 0; s < steps; ++s) {
    out << double(s + 1) * p.grid.dt;  // E time; H probes are half a step earlier (see docs)
    for (std::size_t q = 0; q < p.probes.size(); ++q) {
      const std::size_t at = q * steps + s;
      out << ',';
      if (fp64)
        out << r.probe_values_fp64[at];
      else
        out << r.probe_values[at];
    }
    out << '\n';
  }
  return out.str();
}

}  // namespace ppkit::fdtd
