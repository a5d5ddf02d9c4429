#pragma once
// Image outputs of fields on regular grids:
// - VTK XML ImageData (.vti; "VTK File Formats", VTK user's guide, XML
//   section): point data on an nx x ny x nz lattice with origin and spacing,
//   scalar or 3-vector Float32 arrays, stored raw little-endian in an
//   appended block or inline base64, each array preceded by its UInt64 byte
//   count. ParaView opens these files directly.
// - PNG (ISO/IEC 15948) of a 2D scalar slice through a colour map over a
//   stated value range (values outside are clamped), 8-bit RGB.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ppkit::image {

// The lattice of an ImageData file: points per axis (1 along an unused axis
// for 2D data), the position of point (0, 0, 0) and the spacing.
struct ImageGrid {
  std::array<std::int64_t, 3> points{1, 1, 1};
  std::array<double, 3> origin{0, 0, 0};
  std::array<double, 3> spacing{1, 1, 1};
  std::int64_t count() const { return points[0] * points[1] * points[2]; }
};

// One point-data array: x fastest, then y, then z, components interleaved:
// values[((k * ny + j) * nx + i) * components + c]. components is 1 or 3.
struct ImageArray {
  std::string name;
  int components = 1;
  std::vector<float> values;
};

enum class VtkEncoding { raw_appended, base64_inline };

// Writes a .vti file; throws ppkit::Error when the arrays do not match the
// lattice, a name is empty or repeated, or the file cannot be written.
void write_vti(const std::string& path, const ImageGrid& grid,
               const std::vector<ImageArray>& arrays,
               VtkEncoding encoding = VtkEncoding::raw_appended);

// Reads what write_vti writes (either encoding): the lattice and the arrays.
struct VtiContents {
  ImageGrid grid;
  std::vector<ImageArray> arrays;
};
VtiContents read_vti(const std::string& path);

enum class ColourMap { grey, viridis, coolwarm };
const char* to_string(ColourMap m);
ColourMap parse_colour_map(const std::string& s);  // "grey", "viridis", "coolwarm"
// RGB of a colour map at t in [0, 1] (clamped).
std::array<std::uint8_t, 3> colour(ColourMap map, double t);

// PNG of a width x height scalar slice, values[row * width + column] with
// row 0 drawn at the bottom (the second axis points up, as in a plot); value
// v maps to colour((v - value_min) / (value_max - value_min)).
void write_png(const std::string& path, std::int64_t width, std::int64_t height,
               const std::vector<float>& values, double value_min, double value_max,
               ColourMap map = ColourMap::coolwarm);
// The PNG bytes of an 8-bit RGB image (rgb: 3 bytes per pixel, top row first).
std::vector<std::uint8_t> encode_png_rgb(std::int64_t width, std::int64_t height,
                                         const std::vector<std::uint8_t>& rgb);

}  // namespace ppkit::image
