// PNG figures (image_figure.hpp): the written file decoded by the test's own
// PNG reader (harness/png_decode.hpp) and checked against the documented
// layout rules, the colour map of every cell, hand-computed axis ticks and
// the glyph table.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "harness/figure_check.hpp"
#include "harness/png_decode.hpp"
#include "harness/variant_test.hpp"
#include "ppkit/core/error.hpp"
#include "ppkit/core/image_figure.hpp"

#ifdef PPKIT_TEST_HAVE_LIBPNG
#include <png.h>
#endif

namespace {
using namespace ppkit::image;
using ppkit::testing::decode_png;
using ppkit::testing::DecodedPng;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "ppkit_figure_" + name;
}

std::vector<float> random_values(std::size_t n, unsigned seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// A 33 x 33 slice of 1 mm cells (the size of a small cavity's plane).
FigureSpec square_spec() {
  FigureSpec s;
  s.title = "ez on z = 6.5 mm (index 12), step 50, t = 1.234 ns";
  s.horizontal = {"x", 0.0, 1e-3};
  s.vertical = {"y", 0.0, 1e-3};
  s.quantity = "ez";
  s.unit = "V/m";
  s.value_min = -1.5;
  s.value_max = 2.0;
  s.map = ColourMap::coolwarm;
  return s;
}

// Every plot pixel is the colour of its cell, row 0 of the slice at the bottom.
std::int64_t plot_mismatches(const DecodedPng& d, const PixelBox& plot, int cw, int ch,
                             std::int64_t columns, std::int64_t rows,
                             const std::vector<float>& values, const FigureSpec& s) {
  std::int64_t bad = 0;
  for (int y = 0; y < plot.height; ++y)
    for (int x = 0; x < plot.width; ++x) {
      const std::int64_t row = rows - 1 - y / ch, col = x / cw;
      const double v = values[std::size_t(row * columns + col)];
      bad += d.pixel(plot.left + x, plot.top + y) !=
             colour(s.map, (v - s.value_min) / (s.value_max - s.value_min));
    }
  return bad;
}

TEST(ImageFigure, PlotIsTheUpscaledSliceWithRowZeroAtTheBottom) {
  const std::int64_t n = 33;
  const FigureSpec s = square_spec();
  auto values = random_values(std::size_t(n * n), ppkit::testing::test_seed(), -2.0f, 2.5f);
  const std::string path = temp_path("square.png");
  write_figure_png(path, n, n, values, s);
  const DecodedPng d = decode_png(path);
  ASSERT_EQ(d.error, "");
  const Figure f = render_figure(n, n, values, s);
  EXPECT_EQ(d.width, f.width);
  EXPECT_EQ(d.height, f.height);
  EXPECT_EQ(d.rgb, f.rgb);
  // Design: floor(640 / 33) = 19 pixels per cell, a 627 x 627 plot.
  EXPECT_EQ(f.cell_width, 19);
  EXPECT_EQ(f.cell_height, 19);
  const PixelBox plot = ppkit::testing::find_plot_frame(d);
  EXPECT_EQ(plot.width, 627);
  EXPECT_EQ(plot.height, 627);
  EXPECT_EQ(plot.left, f.plot.left);
  EXPECT_EQ(plot.top, f.plot.top);
  EXPECT_EQ(plot_mismatches(d, plot, 19, 19, n, n, values, s), 0);
  // Cell (0, 0) at the bottom left, cell (32, 32) at the top right.
  EXPECT_EQ(d.pixel(plot.left, plot.top + plot.height - 1), colour(s.map, (values[0] + 1.5) / 3.5));
  EXPECT_EQ(d.pixel(plot.left + plot.width - 1, plot.top),
            colour(s.map, (values.back() + 1.5) / 3.5));
  // Room for the axes, the colour bar and the title; not oversized.
  EXPECT_GT(d.width, plot.width + 150);
  EXPECT_LT(d.width, plot.width + 400);
  EXPECT_GT(d.height, plot.height + 60);
  EXPECT_LT(d.height, plot.height + 200);
  std::remove(path.c_str());
}

TEST(ImageFigure, NonSquareCellsKeepTheirPhysicalAspect) {
  // 20 x 10 cells of 1 mm x 3 mm: the plot is 20 mm x 30 mm; the longer side
  // 30 unit cells -> floor(640 / 30 * 1) = 21 and floor(640 / 30 * 3) = 64.
  FigureSpec s = square_spec();
  s.horizontal = {"x", 0.5e-3, 1e-3};
  s.vertical = {"z", 1.5e-3, 3e-3};
  const std::int64_t cols = 20, rows = 10;
  auto values =
      random_values(std::size_t(cols * rows), ppkit::testing::test_seed() + 1, -1.5f, 2.0f);
  const std::string path = temp_path("aspect.png");
  write_figure_png(path, cols, rows, values, s);
  const DecodedPng d = decode_png(path);
  ASSERT_EQ(d.error, "");
  const PixelBox plot = ppkit::testing::find_plot_frame(d);
  EXPECT_EQ(plot.width, 20 * 21);
  EXPECT_EQ(plot.height, 10 * 64);
  EXPECT_EQ(plot_mismatches(d, plot, 21, 64, cols, rows, values, s), 0);
  std::remove(path.c_str());
}

TEST(ImageFigure, ColourBarRunsFromMinAtTheBottomToMaxAtTheTop) {
  const std::int64_t n = 33;
  for (ColourMap map : {ColourMap::coolwarm, ColourMap::viridis, ColourMap::grey}) {
    FigureSpec s = square_spec();
    s.map = map;
    const Figure f = render_figure(
        n, n, random_values(std::size_t(n * n), ppkit::testing::test_seed(), -1, 1), s);
    const PixelBox& b = f.colour_bar;
    ASSERT_GE(b.height, 200);
    DecodedPng d;
    d.width = f.width, d.height = f.height, d.rgb = f.rgb;
    for (int x = b.left; x < b.left + b.width; ++x) {
      EXPECT_EQ(d.pixel(x, b.top), colour(map, 1.0)) << to_string(map);
      EXPECT_EQ(d.pixel(x, b.top + b.height - 1), colour(map, 0.0)) << to_string(map);
      EXPECT_TRUE(ppkit::testing::is_black(d, x, b.top - 1));  // frame
      EXPECT_TRUE(ppkit::testing::is_black(d, x, b.top + b.height));
    }
    // The exact range is printed at the ends.
    ASSERT_GE(f.colour_ticks.size(), 2u);
    EXPECT_EQ(f.colour_ticks[0].label, "2");
    EXPECT_EQ(f.colour_ticks[0].pixel, b.top);
    EXPECT_EQ(f.colour_ticks[1].label, "-1.5");
    EXPECT_EQ(f.colour_ticks[1].pixel, b.top + b.height - 1);
    EXPECT_TRUE(ppkit::testing::contains_text(d, "ez [V/m]", true));
  }
}

TEST(ImageFigure, AxesHaveNiceTicksInMillimetres) {
  const std::int64_t n = 33;
  const FigureSpec s = square_spec();
  const Figure f =
      render_figure(n, n, random_values(std::size_t(n * n), ppkit::testing::test_seed(), -1, 1), s);
  // Cells centred on 0 .. 32 mm: the axes span -0.5 .. 32.5 mm; ticks every 10 mm.
  EXPECT_EQ(f.length_unit, "mm");
  DecodedPng d;
  d.width = f.width, d.height = f.height, d.rgb = f.rgb;
  for (const auto* ticks : {&f.horizontal_ticks, &f.vertical_ticks}) {
    ASSERT_EQ(ticks->size(), 4u);
    for (std::size_t t = 0; t < 4; ++t) {
      EXPECT_EQ((*ticks)[t].label, std::to_string(10 * t));
      // 19 px per mm from the edge at -0.5 mm.
      const int offset = int(std::lround((10.0 * double(t) + 0.5) * 19));
      if (ticks == &f.horizontal_ticks) {
        EXPECT_EQ((*ticks)[t].pixel, f.plot.left + offset);
        for (int k = 1; k <= 5; ++k)  // the tick mark below the frame
          EXPECT_TRUE(
              ppkit::testing::is_black(d, (*ticks)[t].pixel, f.plot.top + f.plot.height + k));
      } else {
        EXPECT_EQ((*ticks)[t].pixel, f.plot.top + f.plot.height - offset);
        for (int k = 1; k <= 5; ++k)
          EXPECT_TRUE(ppkit::testing::is_black(d, f.plot.left - 1 - k, (*ticks)[t].pixel));
      }
    }
  }
  EXPECT_TRUE(ppkit::testing::contains_text(d, "x [mm]"));
  EXPECT_TRUE(ppkit::testing::contains_text(d, "y [mm]", true));
  EXPECT_TRUE(ppkit::testing::contains_text(d, s.title));

  // Metres, micrometres, nanometres, small values: 3 .. 6 ticks whose labels read
  // back as their values, each a multiple of the step.
  struct Case {
    FigureAxis h, v;
    const char* unit;
    double step;  // expected vertical tick step in the length unit
  };
  const Case cases[] = {{{"x", -0.3, 0.07}, {"z", -1.2, 0.11}, "m", 0.5},       // 2.8 x 2.75 m
                        {{"x", 2e-6, 0.37e-6}, {"y", 0.0, 0.5e-6}, "um", 2.5},  // 14.8 x 12.5 um
                        {{"x", 0.0, 20e-9}, {"y", 0.0, 20e-9}, "nm", 100.0}};   // 800 x 500 nm
  for (const Case& c : cases) {
    FigureSpec t = square_spec();
    t.horizontal = c.h, t.vertical = c.v;
    t.value_min = -3.2e-5, t.value_max = 7.7e-5;
    const Figure g = render_figure(
        40, 25, random_values(1000, ppkit::testing::test_seed() + 2, -1e-5f, 7e-5f), t);
    EXPECT_EQ(g.length_unit, c.unit);
    for (const auto* ticks : {&g.horizontal_ticks, &g.vertical_ticks, &g.colour_ticks}) {
      EXPECT_GE(ticks->size(), 3u);
      EXPECT_LE(ticks->size(), ticks == &g.colour_ticks ? 8u : 6u);
      for (const auto& tick : *ticks)
        EXPECT_NEAR(std::stod(tick.label), tick.value, 1e-12 + 1e-3 * std::abs(tick.value))
            << tick.label;
    }
    for (const auto& tick : g.vertical_ticks) {
      const double steps = tick.value / c.step;
      EXPECT_NEAR(steps, std::round(steps), 1e-9) << tick.label;
    }
  }
}

TEST(ImageFigure, EveryTextIsDrawnFromItsGlyphs) {
  const std::int64_t n = 33;
  const FigureSpec s = square_spec();
  const Figure f =
      render_figure(n, n, random_values(std::size_t(n * n), ppkit::testing::test_seed(), -1, 1), s);
  DecodedPng d;
  d.width = f.width, d.height = f.height, d.rgb = f.rgb;
  ASSERT_GE(f.texts.size(), 12u);  // title, 8 axis ticks, >= 2 colour ticks, 3 labels
  for (const auto& t : f.texts) {
    const auto mask = ppkit::testing::text_mask(t.text, t.vertical);
    EXPECT_TRUE(ppkit::testing::text_at(d, mask, t.x, t.y)) << "'" << t.text << "'";
    int on = 0;
    for (char c : mask.on) on += c;
    EXPECT_GT(on, 0) << t.text;
  }
  // Every character a figure needs has its own glyph.
  const std::string needed =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-+[]()/=,:%";
  for (std::size_t a = 0; a < needed.size(); ++a) {
    ASSERT_NE(glyph(needed[a]), nullptr) << needed[a];
    for (std::size_t b = 0; b < a; ++b)
      EXPECT_NE(*glyph(needed[a]), *glyph(needed[b])) << needed[a] << " " << needed[b];
  }
  EXPECT_EQ(glyph('~'), nullptr);
  EXPECT_EQ(text_width("ab"), 2 * 12 - 2);
}

TEST(ImageFigure, FormatsWithSiPrefixes) {
  EXPECT_EQ(format_si(1.234e-9, "s"), "1.234 ns");
  EXPECT_EQ(format_si(0.0065, "m"), "6.5 mm");
  EXPECT_EQ(format_si(9e8, "Hz"), "900 MHz");
  EXPECT_EQ(format_si(2.45e9, "Hz"), "2.45 GHz");
  EXPECT_EQ(format_si(0, "m"), "0 m");
  EXPECT_EQ(format_si(-3.5e-6, "s"), "-3.5 us");
  EXPECT_EQ(format_si(999.99e-9, "s"), "1 us");
}

TEST(ImageFigure, RejectsBadInput) {
  FigureSpec s = square_spec();
  EXPECT_THROW(render_figure(3, 3, std::vector<float>(8), s), ppkit::Error);
  s.value_max = s.value_min;
  EXPECT_THROW(render_figure(3, 3, std::vector<float>(9), s), ppkit::Error);
  s = square_spec();
  s.vertical.spacing = 0;
  EXPECT_THROW(render_figure(3, 3, std::vector<float>(9), s), ppkit::Error);
}

#ifdef PPKIT_TEST_HAVE_LIBPNG
// The test's reader agrees with libpng on a written figure.
TEST(ImageFigure, TestDecoderAgreesWithLibpng) {
  const std::string path = temp_path("libpng.png");
  write_figure_png(path, 17, 9, random_values(153, ppkit::testing::test_seed(), -2, 2),
                   square_spec());
  const DecodedPng d = decode_png(path);
  ASSERT_EQ(d.error, "");
  FILE* file = std::fopen(path.c_str(), "rb");
  ASSERT_NE(file, nullptr);
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_init_io(png, file);
  png_read_info(png, info);
  ASSERT_EQ(int(png_get_image_width(png, info)), d.width);
  ASSERT_EQ(int(png_get_image_height(png, info)), d.height);
  std::vector<std::uint8_t> rgb(d.rgb.size());
  std::vector<png_bytep> rows(std::size_t(d.height));
  for (int r = 0; r < d.height; ++r)
    rows[std::size_t(r)] = rgb.data() + std::size_t(r) * std::size_t(d.width) * 3;
  png_read_image(png, rows.data());
  png_destroy_read_struct(&png, &info, nullptr);
  std::fclose(file);
  EXPECT_EQ(rgb, d.rgb);
  std::remove(path.c_str());
}
#endif

}  // namespace
