// The file side of case files (cases.hpp): the outputs' checks, reading a
// case file, and writing a case's SAR outputs. Apart from cases.cpp so the
// case reader builds (and is fuzzed) without the output writers.
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ppkit/core/output_path.hpp"
#include "ppkit/fdtd/cases.hpp"

namespace ppkit::fdtd {

void check_case_outputs(const CaseFile& c) {
  std::vector<std::pair<std::string, const char*>> files{{c.probes_path, "outputs.probes"},
                                                         {c.energy_path, "outputs.energy"}};
  if (c.sar)
    for (const auto& file : {std::pair{c.sar->summary, "sar.summary"},
                             {c.sar->vtk, "sar.vtk"},
                             {c.sar->png, "sar.png"}})
      files.push_back(file);
  for (const auto& [file, key] : files)
    if (!file.empty()) require_writable_file(file, key);
}

CaseFile read_case_file(const std::string& path) {
  CaseFile c = case_from_text(read_case_text(path), path);
  check_case_outputs(c);
  return c;
}

void write_case_sar(const CaseSar& sar, const SarMaps& maps, std::ostream& out) {
  out << "SAR at " << sar.frequency << " Hz (sources as sinusoids of their amplitudes): whole-body "
      << maps.whole_body_sar << " W/kg over " << maps.tissue_mass << " kg, absorbed "
      << maps.absorbed_power << " W; peak point " << maps.peak_point << " W/kg, 1 g "
      << maps.peak_1g << " W/kg, 10 g " << maps.peak_10g << " W/kg\n";
  if (!sar.summary.empty()) {
    write_sar_summary(sar.summary, maps, sar.frequency);
    out << "SAR summary written to " << sar.summary << "\n";
  }
  const double h = maps.cell_size;
  if (!sar.vtk.empty()) {
    write_sar_vti(sar.vtk, maps, h,
                  {(double(maps.origin[0]) + 0.5) * h, (double(maps.origin[1]) + 0.5) * h,
                   (double(maps.origin[2]) + 0.5) * h});
    out << "SAR maps written to " << sar.vtk << "\n";
  }
  if (!sar.png.empty()) {
    write_sar_png(sar.png, maps);
    out << "SAR slice written to " << sar.png << "\n";
  }
}

}  // namespace ppkit::fdtd
