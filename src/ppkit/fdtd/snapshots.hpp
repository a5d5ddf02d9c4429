#pragma once
// Plane snapshots of one field component: every `every` steps the variants copy
// one grid plane (normal x, y or z at a node index) back to the host; the
// frames go to VTK ImageData (.vti + a .pvd time series for ParaView) and PNG.
//
// A frame of normal n holds the two other axes a < b, a fastest:
//   values[ib * na + ia],  na = nodes along a, nb = nodes along b
// (all (n+1) nodes per axis, as stored; entries beyond the component's extent
// are zero). E frames are E^{s+1}, H frames H^{s+1/2} after step s (like probes).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ppkit/fdtd/yee_grid.hpp"

namespace ppkit::fdtd {

struct PlaneSnapshot {
  Component component = Component::ez;
  int normal = 2;          // 0 x, 1 y, 2 z
  index_t index = 0;       // node index along the normal
  std::int64_t every = 1;  // steps between frames (frames after steps every-1, 2 every-1, ...)
  // Outputs (used by the command line, not the variants): file stems, "" for none.
  std::string vtk, png;
  std::string colour_map = "coolwarm";
  std::array<double, 2> png_range{0, 0};  // min < max, or {0, 0}: +-max |value| over all frames
};

struct SnapshotFrame {
  int snapshot = 0;       // index into Problem::snapshots
  std::int64_t step = 0;  // 0-based step after which it was taken
  std::vector<float> values;
};

int parse_axis(const std::string& s);  // "x", "y", "z" (case-insensitive)
const char* axis_name(int axis);
std::array<int, 2> plane_axes(int normal);  // the in-plane axes a < b
std::array<index_t, 2> plane_size(const YeeGrid& grid, int normal);
void validate(const PlaneSnapshot& s, const YeeGrid& grid);

// Rows of a plane in the device layout (z pitch pz >= nz + 1): `rows` runs of
// `row_length` consecutive elements, `row_pitch` apart, starting at `offset`;
// read in that order they give values_native[ia * nb + ib] (b fastest).
struct PlaneCopy {
  index_t offset = 0, rows = 0, row_length = 0, row_pitch = 0;
};
PlaneCopy plane_copy(const YeeGrid& grid, index_t pz, int normal, index_t index);
// values_native (b fastest) -> frame layout (a fastest).
std::vector<float> frame_from_native(const std::vector<float>& native, index_t na, index_t nb);

// A snapshot from a command-line spec "COMPONENT:NORMAL:INDEX:EVERY:STEM" (e.g.
// "ez:z:12:50:out/ez_z12"), writing both <STEM>_*.vti and <STEM>_*.png;
// an optional sixth field "vtk" or "png" writes only that one.
PlaneSnapshot parse_snapshot_spec(const std::string& spec);

// Steps (0-based) after which each snapshot takes a frame, as (step, snapshot)
// pairs sorted by step.
std::vector<std::pair<std::int64_t, int>> snapshot_schedule(const std::vector<PlaneSnapshot>& s,
                                                            std::int64_t steps);

// Writes the frames of every snapshot that names a vtk or png stem:
// <stem>_<step+1, 6 digits>.vti (+ <stem>.pvd) and <stem>_<step+1>.png, the
// PNG a figure (image_figure.hpp): the plane upscaled, axes in physical
// coordinates of the component's nodes, title (component, plane, step,
// time) and a colour bar in V/m (E) or A/m (H).
// Returns the files written.
std::vector<std::string> write_snapshot_files(const YeeGrid& grid,
                                              const std::vector<PlaneSnapshot>& snapshots,
                                              const std::vector<SnapshotFrame>& frames);

}  // namespace ppkit::fdtd
