#include "ppkit/fdtd/sources.hpp"

#include <cmath>

#include "ppkit/core/error.hpp"

namespace ppkit::fdtd {

const char* to_string(Waveform w) {
  switch (w) {
    case Waveform::gaussian:
      return "gaussian";
    case Waveform::ricker:
      return "ricker";
    case Waveform::modulated_gaussian:
      return "modulated-gaussian";
  }
  return "?";
}

Waveform parse_waveform(const std::string& s) {
  for (Waveform w : {Waveform::gaussian, Waveform::ricker, Waveform::modulated_gaussian})
    if (s == to_string(w)) return w;
  throw Error("unknown waveform '" + s + "'", "gaussian, ricker, modulated-gaussian");
}

double waveform_value(Waveform w, double f, double t) {
  constexpr double pi = 3.14159265358979323846;
  switch (w) {
    case Waveform::gaussian: {
      const double zeta = 2 * pi * pi * f * f, s = t - 1 / f;
      return std::exp(-zeta * s * s);
    }
    case Waveform::ricker: {
      const double zeta = pi * pi * f * f, s = t - std::sqrt(2.0) / f;
      return -(2 * zeta * s * s - 1) * std::exp(-zeta * s * s);
    }
    case Waveform::modulated_gaussian: {
      const double tau = 1 / f, s = t - 3 / f;
      return std::sin(2 * pi * f * s) * std::exp(-(s / tau) * (s / tau));
    }
  }
  return 0;
}

}  // namespace ppkit::fdtd
