#pragma once
// Point dipole sources and their waveforms (definitions as in gprMax's user
// guide, "waveforms"), with f the centre frequency:
//   gaussian:            exp(-zeta (t - chi)^2),            zeta = 2 pi^2 f^2, chi = 1/f
//   ricker:              -(2 zeta (t-chi)^2 - 1) exp(-zeta (t-chi)^2), zeta = pi^2 f^2, chi =
//   sqrt(2)/f modulated-gaussian:  sin(2 pi f (t - chi)) exp(-((t - chi)/tau)^2), tau = 1/f, chi =
//   3/f
// A soft source is a Hertzian dipole: an impressed current moment I dl
// (A m) in one E node, J = I dl w(t) / (dx dy dz), added as E -= cb J
// (Taflove eq. 3.29 with J). A hard source sets the E node to amplitude w(t) (V/m).
#include <string>
#include <vector>

#include "ppkit/fdtd/yee_grid.hpp"

namespace ppkit::fdtd {

enum class Waveform { gaussian, ricker, modulated_gaussian };
const char* to_string(Waveform w);
Waveform parse_waveform(const std::string& s);
double waveform_value(Waveform w, double frequency, double t);

struct PointSource {
  Component component = Component::ez;  // an E component
  index_t i = 0, j = 0, k = 0;
  Waveform waveform = Waveform::gaussian;
  double frequency = 1e9;  // Hz
  double amplitude = 1;    // soft: I dl in A m; hard: V/m
  double delay = 0;        // s, added to the waveform's own delay
  bool hard = false;
};

struct Probe {
  Component component = Component::ez;
  index_t i = 0, j = 0, k = 0;
  std::string name;  // CSV column; default "<component>(i,j,k)"
};

}  // namespace ppkit::fdtd
