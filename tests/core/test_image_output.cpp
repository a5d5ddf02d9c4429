// VTK ImageData and PNG writers: .vti files parsed back (both encodings), PNG
// decoded by libpng (an independent decoder) and its pixels checked.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "ppkit/core/error.hpp"
#include "ppkit/core/image_output.hpp"
#include "harness/variant_test.hpp"

#ifdef PPKIT_TEST_HAVE_LIBPNG
#include <png.h>
#endif

namespace {
using namespace ppkit::image;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "ppkit_image_" + name;
}

std::vector<float> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

void expect_round_trip(VtkEncoding encoding, const std::string& file) {
  ImageGrid g;
  g.points = {5, 4, 3};
  g.origin = {0.5, -1.25, 3e-3};
  g.spacing = {1e-3, 2e-3, 0.125};
  const unsigned seed = ppkit::testing::test_seed();
  std::vector<ImageArray> arrays{{"ez", 1, random_values(60, seed)},
                                 {"E", 3, random_values(180, seed + 1)}};
  const std::string path = temp_path(file);
  write_vti(path, g, arrays, encoding);
  const VtiContents back = read_vti(path);
  EXPECT_EQ(back.grid.points, g.points);
  for (int u = 0; u < 3; ++u) {
    EXPECT_DOUBLE_EQ(back.grid.origin[std::size_t(u)], g.origin[std::size_t(u)]);
    EXPECT_DOUBLE_EQ(back.grid.spacing[std::size_t(u)], g.spacing[std::size_t(u)]);
  }
  ASSERT_EQ(back.arrays.size(), 2u);
  for (std::size_t a = 0; a < 2; ++a) {
    EXPECT_EQ(back.arrays[a].name, arrays[a].name);
    EXPECT_EQ(back.arrays[a].components, arrays[a].components);
    EXPECT_EQ(back.arrays[a].values, arrays[a].values);  // bitwise: raw float32
  }
  std::remove(path.c_str());
}

TEST(ImageOutput, VtiRawAppendedRoundTrip) {
  expect_round_trip(VtkEncoding::raw_appended, "raw.vti");
}

TEST(ImageOutput, VtiBase64RoundTrip) { expect_round_trip(VtkEncoding::base64_inline, "b64.vti"); }

TEST(ImageOutput, VtiHeaderIsParaViewImageData) {
  ImageGrid g;
  g.points = {3, 2, 1};  // 2D
  const std::string path = temp_path("header.vti");
  write_vti(path, g, {{"hz", 1, std::vector<float>(6, 1.5f)}});
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("type=\"ImageData\""), std::string::npos);
  EXPECT_NE(text.find("WholeExtent=\"0 2 0 1 0 0\""), std::string::npos);
  EXPECT_NE(text.find("byte_order=\"LittleEndian\""), std::string::npos);
  EXPECT_NE(text.find("<AppendedData encoding=\"raw\">"), std::string::npos);
  std::remove(path.c_str());
}

TEST(ImageOutput, VtiRejectsMismatchedArrays) {
  ImageGrid g;
  g.points = {2, 2, 2};
  EXPECT_THROW(write_vti(temp_path("bad.vti"), g, {{"ex", 1, std::vector<float>(7, 1.0f)}}),
               ppkit::Error);
  EXPECT_THROW(write_vti(temp_path("bad.vti"), g, {{"E", 2, std::vector<float>(16, 1.0f)}}),
               ppkit::Error);
  EXPECT_THROW(write_vti(temp_path("bad.vti"), g,
                         {{"a", 1, std::vector<float>(8, 1.0f)}, {"a", 1, std::vector<float>(8)}}),
               ppkit::Error);
}

TEST(ImageOutput, ColourMapsHitTheirEnds) {
  EXPECT_EQ(colour(ColourMap::grey, 0.0), (std::array<std::uint8_t, 3>{0, 0, 0}));
  EXPECT_EQ(colour(ColourMap::grey, 1.0), (std::array<std::uint8_t, 3>{255, 255, 255}));
  EXPECT_EQ(colour(ColourMap::grey, 0.5), (std::array<std::uint8_t, 3>{128, 128, 128}));
  EXPECT_EQ(colour(ColourMap::coolwarm, -4.0), colour(ColourMap::coolwarm, 0.0));  // clamped
  EXPECT_EQ(colour(ColourMap::viridis, 1.0), (std::array<std::uint8_t, 3>{253, 231, 37}));
  EXPECT_THROW(parse_colour_map("jet"), ppkit::Error);
}

#ifdef PPKIT_TEST_HAVE_LIBPNG
struct DecodedPng {
  std::uint32_t width = 0, height = 0;
  int colour_type = -1, bit_depth = 0;
  std::vector<std::uint8_t> rgb;  // top row first
};

DecodedPng decode_with_libpng(const std::string& path) {
  DecodedPng d;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return d;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {  // libpng reports errors by longjmp
    png_destroy_read_struct(&png, &info, nullptr);
    std::fclose(f);
    d.width = 0;
    return d;
  }
  png_init_io(png, f);
  png_read_info(png, info);
  d.width = png_get_image_width(png, info);
  d.height = png_get_image_height(png, info);
  d.colour_type = png_get_color_type(png, info);
  d.bit_depth = png_get_bit_depth(png, info);
  d.rgb.resize(std::size_t(d.width) * d.height * 3);
  std::vector<png_bytep> rows(d.height);
  for (std::uint32_t r = 0; r < d.height; ++r)
    rows[r] = d.rgb.data() + std::size_t(r) * d.width * 3;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  std::fclose(f);
  return d;
}

TEST(ImageOutput, PngDecodesWithLibpngToTheColourMappedValues) {
  // 300 x 250 pixels: larger than one 64 KiB stored deflate block.
  const std::int64_t w = 300, h = 250;
  std::vector<float> values = random_values(std::size_t(w * h), ppkit::testing::test_seed());
  values[0] = -10.0f;  // below the range: clamped to the low colour
  values[std::size_t(w * h - 1)] = 10.0f;
  const double lo = -2.0, hi = 2.5;
  const std::string path = temp_path("slice.png");
  write_png(path, w, h, values, lo, hi, ColourMap::viridis);
  const DecodedPng d = decode_with_libpng(path);
  ASSERT_EQ(d.width, std::uint32_t(w));
  ASSERT_EQ(d.height, std::uint32_t(h));
  EXPECT_EQ(d.colour_type, PNG_COLOR_TYPE_RGB);
  EXPECT_EQ(d.bit_depth, 8);
  std::int64_t mismatches = 0;
  for (std::int64_t row = 0; row < h; ++row)
    for (std::int64_t col = 0; col < w; ++col) {
      const auto expected =
          colour(ColourMap::viridis, (values[std::size_t(row * w + col)] - lo) / (hi - lo));
      const std::size_t pixel = std::size_t(3 * ((h - 1 - row) * w + col));  // row 0 at the bottom
      for (int c = 0; c < 3; ++c)
        mismatches += d.rgb[pixel + std::size_t(c)] != expected[std::size_t(c)];
    }
  EXPECT_EQ(mismatches, 0);
  const std::size_t bottom_left = std::size_t(3 * (h - 1) * w);
  EXPECT_EQ(d.rgb[bottom_left], 68);              // viridis at 0
  EXPECT_EQ(d.rgb[3 * std::size_t(w) - 3], 253);  // top right: viridis at 1
  std::remove(path.c_str());
}
#endif

TEST(ImageOutput, PngRejectsEmptyRange) {
  EXPECT_THROW(write_png(temp_path("bad.png"), 2, 2, std::vector<float>(4, 1.0f), 1.0, 1.0),
               ppkit::Error);
  EXPECT_THROW(write_png(temp_path("bad.png"), 2, 2, std::vector<float>(3, 1.0f), 0.0, 1.0),
               ppkit::Error);
}

}  // namespace
