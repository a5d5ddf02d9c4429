#pragma once
// Figures of a 2D scalar slice for people to read, written as 8-bit RGB PNG
// (encode_png_rgb in image_output.hpp; no other dependency):
// - the plot area: each cell drawn nearest-neighbour as a block of
//   cell_width x cell_height pixels, the block sizes in the ratio of the
//   physical spacings, the longer side of the plot about `figure_plot_pixels`
//   pixels (at least one pixel per cell); row 0 of the slice at the bottom;
// - axes along the bottom and the left with 3-6 "nice" ticks (1, 2, 2.5 or
//   5 x 10^k apart) labelled in a length unit chosen from the slice's size
//   (m, mm, um, nm), and the axis labels "x [mm]", "z [mm]";
// - a title line above the plot;
// - a colour bar to the right: the colour map from value_min (bottom) to
//   value_max (top), its two ends labelled with the exact range, nice ticks
//   between them, and the label "<quantity> [<unit>]".
// Text is drawn with the 5 x 7 pixel font below (plus descender rows), each
// font pixel a figure_text_scale x figure_text_scale block, black on white.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ppkit/core/image_output.hpp"

namespace ppkit::image {

// ---- bitmap font -------------------------------------------------------------
constexpr int glyph_columns = 5, glyph_rows = 9;  // 5 x 7 body, 2 rows of descenders
constexpr int figure_text_scale = 2;
// One glyph: rows top first, bit 4 the leftmost column. Digits, A-Z, a-z,
// space and . - + [ ] ( ) / = , : % ? _ ; nullptr for any other character
// (drawn as '?').
const std::array<std::uint8_t, glyph_rows>* glyph(char c);
// Pixel size of a text line at figure_text_scale: one blank font column
// between characters, none after the last.
int text_width(const std::string& text);
constexpr int text_height = glyph_rows * figure_text_scale;
constexpr int text_advance = (glyph_columns + 1) * figure_text_scale;

// ---- figure ------------------------------------------------------------------
constexpr int figure_plot_pixels = 640;

struct FigureAxis {
  std::string name = "x";  // axis label "<name> [<length unit>]"
  double first = 0;        // coordinate (m) of the first cell's centre
  double spacing = 1;      // distance (m) between cell centres, > 0
};

struct FigureSpec {
  std::string title;
  FigureAxis horizontal, vertical;      // along a row of the slice / along a column
  std::string quantity = "value";       // colour bar label "<quantity> [<unit>]"
  std::string unit;                     // "V/m", "A/m", "W/kg"; empty: no brackets
  double value_min = 0, value_max = 1;  // finite, min < max; values outside are clamped
  ColourMap map = ColourMap::coolwarm;
};

// A pixel rectangle: columns left .. left + width - 1, rows top .. top + height - 1.
struct PixelBox {
  int left = 0, top = 0, width = 0, height = 0;
};

struct FigureTick {
  double value = 0;  // in the axis' display unit (length unit, or the value unit)
  int pixel = 0;     // column (horizontal axis) or row (vertical axis, colour bar)
  std::string label;
};

// A text line drawn at (x, y), the top-left corner of its box. Vertical text
// reads bottom to top (the glyphs turned 90 degrees counter-clockwise): its
// box is text_height wide and text_width(text) tall.
struct FigureText {
  std::string text;
  int x = 0, y = 0;
  bool vertical = false;
};

struct Figure {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // 3 bytes per pixel, top row first
  PixelBox plot, colour_bar;      // the black frames lie one pixel outside
  int cell_width = 0, cell_height = 0;
  std::string length_unit;  // "m", "mm" or "um"
  double length_scale = 1;  // display length = metres * length_scale
  std::vector<FigureTick> horizontal_ticks, vertical_ticks, colour_ticks;
  std::vector<FigureText> texts;  // every text drawn
};

// The figure of a columns x rows slice, values[row * columns + column].
// Throws ppkit::Error for a size mismatch, an empty value range or a
// non-positive spacing.
Figure render_figure(std::int64_t columns, std::int64_t rows, const std::vector<float>& values,
                     const FigureSpec& spec);
void write_figure_png(const std::string& path, std::int64_t columns, std::int64_t rows,
                      const std::vector<float>& values, const FigureSpec& spec);

// A value with an SI prefix (p n u m - k M G) and 4 significant digits:
// format_si(1.234e-9, "s") == "1.234 ns", format_si(0.0065, "m") == "6.5 mm".
std::string format_si(double value, const std::string& unit);

}  // namespace ppkit::image
