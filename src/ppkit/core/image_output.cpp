#include "ppkit/core/image_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "ppkit/core/error.hpp"

#ifdef PPKIT_HAVE_ZLIB
#include <zlib.h>
#endif

namespace ppkit::image {
namespace {

// ---- little-endian bytes, base64 (RFC 4648) ----------------------------------
void append_u64_le(std::string& out, std::uint64_t v) {
  for (int b = 0; b < 8; ++b) out.push_back(char((v >> (8 * b)) & 0xffu));
}

void append_floats_le(std::string& out, const std::vector<float>& v) {
  for (float f : v) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    for (int b = 0; b < 4; ++b) out.push_back(char((u >> (8 * b)) & 0xffu));
  }
}

constexpr char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t n = 0;
  for (; n + 2 < bytes.size(); n += 3) {
    const std::uint32_t v = std::uint32_t(std::uint8_t(bytes[n])) << 16 |
                            std::uint32_t(std::uint8_t(bytes[n + 1])) << 8 |
                            std::uint32_t(std::uint8_t(bytes[n + 2]));
    for (int s = 18; s >= 0; s -= 6) out.push_back(base64_alphabet[(v >> s) & 63u]);
  }
  const std::size_t rest = bytes.size() - n;
  if (rest > 0) {
    std::uint32_t v = std::uint32_t(std::uint8_t(bytes[n])) << 16;
    if (rest == 2) v |= std::uint32_t(std::uint8_t(bytes[n + 1])) << 8;
    out.push_back(base64_alphabet[(v >> 18) & 63u]);
    out.push_back(base64_alphabet[(v >> 12) & 63u]);
    out.push_back(rest == 2 ? base64_alphabet[(v >> 6) & 63u] : '=');
    out.push_back('=');
  }
  return out;
}

std::string base64_decode(const std::string& text) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const char* p = std::strchr(base64_alphabet, c);
    if (c == '=' || c == '\0' || p == nullptr) continue;  // padding, whitespace
    acc = (acc << 6) | std::uint32_t(p - base64_alphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(char((acc >> bits) & 0xffu));
    }
  }
  return out;
}

std::uint64_t read_u64_le(const std::string& bytes, std::size_t at) {
  std::uint64_t v = 0;
  for (int b = 7; b >= 0; --b) v = (v << 8) | std::uint8_t(bytes[at + std::size_t(b)]);
  return v;
}

std::vector<float> read_floats_le(const std::string& bytes, std::size_t at, std::size_t count) {
  std::vector<float> v(count);
  for (std::size_t n = 0; n < count; ++n) {
    std::uint32_t u = 0;
    for (int b = 3; b >= 0; --b) u = (u << 8) | std::uint8_t(bytes[at + 4 * n + std::size_t(b)]);
    std::memcpy(&v[n], &u, 4);
  }
  return v;
}

std::string triple_text(const std::array<double, 3>& v) {
  std::ostringstream s;
  s.precision(17);
  s << v[0] << ' ' << v[1] << ' ' << v[2];
  return s.str();
}

std::string extent_text(const ImageGrid& g) {
  return "0 " + std::to_string(g.points[0] - 1) + " 0 " + std::to_string(g.points[1] - 1) + " 0 " +
         std::to_string(g.points[2] - 1);
}

// Value of attribute `name` in the XML tag starting at `tag` (up to its '>').
std::string attribute(const std::string& xml, std::size_t tag, const std::string& name,
                      const std::string& where) {
  const std::size_t end = xml.find('>', tag);
  const std::string key = " " + name + "=\"";
  const std::size_t at = xml.find(key, tag);
  if (at == std::string::npos || at > end)
    throw Error("VTK file " + where + ": attribute '" + name + "' missing");
  const std::size_t from = at + key.size();
  return xml.substr(from, xml.find('"', from) - from);
}

}  // namespace

// ---- VTK ImageData -----------------------------------------------------------

void write_vti(const std::string& path, const ImageGrid& grid,
               const std::vector<ImageArray>& arrays, VtkEncoding encoding) {
  for (int u = 0; u < 3; ++u)
    require(grid.points[std::size_t(u)] >= 1, "VTK image " + path + " has no points along an axis",
            "points >= 1 per axis (1 for 2D)");
  std::set<std::string> names;
  for (const auto& a : arrays) {
    require(!a.name.empty() && names.insert(a.name).second,
            "VTK image " + path + ": array name '" + a.name + "' is empty or repeated",
            "distinct non-empty names");
    require(a.components == 1 || a.components == 3,
            "VTK image array '" + a.name + "' has " + std::to_string(a.components) + " components",
            "1 (scalar) or 3 (vector)");
    require(std::int64_t(a.values.size()) == grid.count() * a.components,
            "VTK image array '" + a.name + "' has " + std::to_string(a.values.size()) + " values",
            std::to_string(grid.count() * a.components) + " (points x components)");
  }
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" "
         "header_type=\"UInt64\">\n"
      << "  <ImageData WholeExtent=\"" << extent_text(grid) << "\" Origin=\""
      << triple_text(grid.origin) << "\" Spacing=\"" << triple_text(grid.spacing) << "\">\n"
      << "    <Piece Extent=\"" << extent_text(grid) << "\">\n"
      << "      <PointData>\n";
  std::string appended;
  for (const auto& a : arrays) {
    std::string block;
    append_u64_le(block, std::uint64_t(a.values.size() * sizeof(float)));
    append_floats_le(block, a.values);
    xml << "        <DataArray type=\"Float32\" Name=\"" << a.name << "\" NumberOfComponents=\""
        << a.components << "\"";
    if (encoding == VtkEncoding::raw_appended) {
      xml << " format=\"appended\" offset=\"" << appended.size() << "\"/>\n";
      appended += block;
    } else {  // header and data in one base64 stream, as VTK's own writer does uncompressed
      xml << " format=\"binary\">\n" << base64_encode(block) << "\n        </DataArray>\n";
    }
  }
  xml << "      </PointData>\n    </Piece>\n  </ImageData>\n";
  if (encoding == VtkEncoding::raw_appended)
    xml << "  <AppendedData encoding=\"raw\">\n   _" << appended << "\n  </AppendedData>\n";
  xml << "</VTKFile>\n";
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error("cannot write VTK image '" + path + "'", "a writable path");
  const std::string text = xml.str();
  out.write(text.data(), std::streamsize(text.size()));
  if (!out) throw Error("writing VTK image '" + path + "' failed");
}

VtiContents read_vti(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read VTK image '" + path + "'");
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  VtiContents c;
  const std::size_t image = xml.find("<ImageData");
  if (xml.find("type=\"ImageData\"") == std::string::npos || image == std::string::npos)
    throw Error("'" + path + "' is not a VTK ImageData file");
  if (attribute(xml, xml.find("<VTKFile"), "byte_order", path) != "LittleEndian" ||
      attribute(xml, xml.find("<VTKFile"), "header_type", path) != "UInt64")
    throw Error("VTK file " + path + ": only LittleEndian with UInt64 headers is read");
  {
    std::istringstream e(attribute(xml, image, "WholeExtent", path));
    std::int64_t lo, hi;
    for (int u = 0; u < 3; ++u) {
      e >> lo >> hi;
      c.grid.points[std::size_t(u)] = hi - lo + 1;
    }
    std::istringstream o(attribute(xml, image, "Origin", path));
    std::istringstream s(attribute(xml, image, "Spacing", path));
    for (int u = 0; u < 3; ++u) o >> c.grid.origin[std::size_t(u)];
    for (int u = 0; u < 3; ++u) s >> c.grid.spacing[std::size_t(u)];
  }
  const std::size_t appended_tag = xml.find("<AppendedData");
  std::size_t appended_start = std::string::npos;
  if (appended_tag != std::string::npos) appended_start = xml.find('_', appended_tag) + 1;
  for (std::size_t at = xml.find("<DataArray", image); at != std::string::npos && at < appended_tag;
       at = xml.find("<DataArray", at + 1)) {
    ImageArray a;
    a.name = attribute(xml, at, "Name", path);
    a.components = std::stoi(attribute(xml, at, "NumberOfComponents", path));
    if (attribute(xml, at, "type", path) != "Float32")
      throw Error("VTK file " + path + ": array '" + a.name + "' is not Float32");
    const std::string format = attribute(xml, at, "format", path);
    std::string bytes;
    std::size_t from = 0;
    if (format == "appended") {
      if (appended_start == std::string::npos)
        throw Error("VTK file " + path + ": appended array without AppendedData");
      from = appended_start + std::stoull(attribute(xml, at, "offset", path));
      bytes = xml;
    } else if (format == "binary") {
      const std::size_t open = xml.find('>', at) + 1;
      bytes = base64_decode(xml.substr(open, xml.find("</DataArray>", open) - open));
    } else {
      throw Error("VTK file " + path + ": array format '" + format + "' is not read",
                  "appended (raw), binary (base64)");
    }
    if (from + 8 > bytes.size()) throw Error("VTK file " + path + " is truncated");
    const std::uint64_t size = read_u64_le(bytes, from);
    if (from + 8 + size > bytes.size()) throw Error("VTK file " + path + " is truncated");
    a.values = read_floats_le(bytes, from + 8, std::size_t(size / 4));
    c.arrays.push_back(std::move(a));
  }
  return c;
}

// ---- colour maps ---------------------------------------------------------------

const char* to_string(ColourMap m) {
  switch (m) {
    case ColourMap::grey:
      return "grey";
    case ColourMap::viridis:
      return "viridis";
    case ColourMap::coolwarm:
      return "coolwarm";
  }
  return "?";
}

ColourMap parse_colour_map(const std::string& s) {
  for (ColourMap m : {ColourMap::grey, ColourMap::viridis, ColourMap::coolwarm})
    if (s == to_string(m)) return m;
  throw Error("unknown colour map '" + s + "'", "grey, viridis, coolwarm");
}

std::array<std::uint8_t, 3> colour(ColourMap map, double t) {
  t = std::isnan(t) ? 0.0 : std::min(1.0, std::max(0.0, t));
  // Control points, equally spaced in t, linearly interpolated in RGB.
  // viridis: samples of matplotlib's perceptually uniform map; coolwarm:
  // Moreland's diverging blue-grey-red map (2009), good for signed fields.
  static const std::uint8_t viridis[9][3] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},
                                             {44, 113, 142}, {33, 144, 141}, {39, 173, 129},
                                             {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};
  static const std::uint8_t coolwarm[5][3] = {
      {59, 76, 192}, {141, 176, 254}, {221, 221, 221}, {244, 154, 123}, {180, 4, 38}};
  static const std::uint8_t grey[2][3] = {{0, 0, 0}, {255, 255, 255}};
  const std::uint8_t(*table)[3] = map == ColourMap::viridis    ? viridis
                                  : map == ColourMap::coolwarm ? coolwarm
                                                               : grey;
  const int points = map == ColourMap::viridis ? 9 : map == ColourMap::coolwarm ? 5 : 2;
  const double x = t * (points - 1);
  const int lo = std::min(points - 2, int(x));
  const double w = x - lo;
  std::array<std::uint8_t, 3> rgb{};
  for (int c = 0; c < 3; ++c)
    rgb[std::size_t(c)] = std::uint8_t(std::lround((1 - w) * table[lo][c] + w * table[lo + 1][c]));
  return rgb;
}

// ---- PNG -------------------------------------------------------------------------
namespace {

std::uint32_t crc32_png(const std::uint8_t* data, std::size_t n, std::uint32_t crc = 0) {
  // CRC-32 of ISO/IEC 15948 annex D (polynomial 0xedb88320, reflected).
  static std::uint32_t table[256];
  static bool ready = false;
  if (!ready) {
    for (std::uint32_t v = 0; v < 256; ++v) {
      std::uint32_t c = v;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table[v] = c;
    }
    ready = true;
  }
  crc = ~crc;
  for (std::size_t i = 0; i < n; ++i) crc = table[(crc ^ data[i]) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

void append_u32_be(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(std::uint8_t((v >> s) & 0xffu));
}

void append_chunk(std::vector<std::uint8_t>& png, const char type[4],
                  const std::vector<std::uint8_t>& data) {
  append_u32_be(png, std::uint32_t(data.size()));
  std::vector<std::uint8_t> typed(type, type + 4);
  typed.insert(typed.end(), data.begin(), data.end());
  png.insert(png.end(), typed.begin(), typed.end());
  append_u32_be(png, crc32_png(typed.data(), typed.size()));
}

// The zlib stream (RFC 1950) of the filtered scanlines: deflate through zlib
// where ppkit was built with it, otherwise stored (uncompressed) deflate
// blocks (RFC 1951 sec. 3.2.4), which every PNG reader accepts.
std::vector<std::uint8_t> zlib_stream(const std::vector<std::uint8_t>& raw) {
#ifdef PPKIT_HAVE_ZLIB
  uLongf size = compressBound(uLong(raw.size()));
  std::vector<std::uint8_t> out(size);
  if (compress2(out.data(), &size, raw.data(), uLong(raw.size()), 6) != Z_OK)
    throw Error("PNG: zlib compression failed");
  out.resize(size);
  return out;
#else
  std::vector<std::uint8_t> out{0x78, 0x01};
  std::size_t at = 0;
  do {
    const std::size_t len = std::min<std::size_t>(65535, raw.size() - at);
    out.push_back(at + len == raw.size() ? 1 : 0);  // BFINAL, BTYPE = 00
    out.push_back(std::uint8_t(len & 0xff));
    out.push_back(std::uint8_t(len >> 8));
    out.push_back(std::uint8_t(~len & 0xff));
    out.push_back(std::uint8_t((~len >> 8) & 0xff));
    out.insert(out.end(), raw.begin() + std::ptrdiff_t(at), raw.begin() + std::ptrdiff_t(at + len));
    at += len;
  } while (at < raw.size());
  std::uint32_t a = 1, b = 0;  // Adler-32
  for (std::uint8_t v : raw) {
    a = (a + v) % 65521u;
    b = (b + a) % 65521u;
  }
  append_u32_be(out, (b << 16) | a);
  return out;
#endif
}

}  // namespace

std::vector<std::uint8_t> encode_png_rgb(std::int64_t width, std::int64_t height,
                                         const std::vector<std::uint8_t>& rgb) {
  require(width >= 1 && height >= 1 && width < (1ll << 31) && height < (1ll << 31),
          "PNG size " + std::to_string(width) + " x " + std::to_string(height) + " is invalid",
          "1 .. 2^31-1 pixels per side");
  require(std::int64_t(rgb.size()) == 3 * width * height, "PNG: RGB buffer has the wrong size",
          std::to_string(3 * width * height) + " bytes");
  std::vector<std::uint8_t> png{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<std::uint8_t> header;
  append_u32_be(header, std::uint32_t(width));
  append_u32_be(header, std::uint32_t(height));
  header.insert(header.end(), {8, 2, 0, 0, 0});  // 8-bit RGB, deflate, filter 0, no interlace
  append_chunk(png, "IHDR", header);
  std::vector<std::uint8_t> raw;
  raw.reserve(std::size_t(height * (3 * width + 1)));
  for (std::int64_t row = 0; row < height; ++row) {
    raw.push_back(0);  // filter type None
    const auto begin = rgb.begin() + std::ptrdiff_t(3 * width * row);
    raw.insert(raw.end(), begin, begin + std::ptrdiff_t(3 * width));
  }
  append_chunk(png, "IDAT", zlib_stream(raw));
  append_chunk(png, "IEND", {});
  return png;
}

void write_png(const std::string& path, std::int64_t width, std::int64_t height,
               const std::vector<float>& values, double value_min, double value_max,
               ColourMap map) {
  require(std::int64_t(values.size()) == width * height,
          "PNG " + path + ": " + std::to_string(values.size()) + " values",
          std::to_string(width * height) + " (width x height)");
  require(value_max > value_min && std::isfinite(value_min) && std::isfinite(value_max),
          "PNG " + path + ": value range [" + std::to_string(value_min) + ", " +
              std::to_string(value_max) + "] is empty",
          "finite min < max");
  std::vector<std::uint8_t> rgb(std::size_t(3 * width * height));
  for (std::int64_t row = 0; row < height; ++row)
    for (std::int64_t col = 0; col < width; ++col) {
      const double v = values[std::size_t(row * width + col)];
      const auto c = colour(map, (v - value_min) / (value_max - value_min));
      const std::size_t pixel = std::size_t(3 * ((height - 1 - row) * width + col));  // y up
      rgb[pixel] = c[0];
      rgb[pixel + 1] = c[1];
      rgb[pixel + 2] = c[2];
    }
  const auto png = encode_png_rgb(width, height, rgb);
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error("cannot write PNG '" + path + "'", "a writable path");
  out.write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
  if (!out) throw Error("writing PNG '" + path + "' failed");
}

}  // namespace ppkit::image
