#include "ppkit/core/image_figure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "ppkit/core/error.hpp"

namespace ppkit::image {
namespace {

// Glyphs drawn for ppkit: a 5 x 7 body (capitals, digits, ascenders) on
// rows 0-6, the baseline under row 6, descenders (g j p q y ,) on rows 7-8.
// Rows top first, bit 4 the leftmost column.
struct GlyphEntry {
  char c;
  std::array<std::uint8_t, glyph_rows> rows;
};
constexpr GlyphEntry font[] = {
    {' ', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
    {'0', {0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e, 0x00, 0x00}},
    {'1', {0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e, 0x00, 0x00}},
    {'2', {0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f, 0x00, 0x00}},
    {'3', {0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e, 0x00, 0x00}},
    {'4', {0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02, 0x00, 0x00}},
    {'5', {0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e, 0x00, 0x00}},
    {'6', {0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e, 0x00, 0x00}},
    {'7', {0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08, 0x00, 0x00}},
    {'8', {0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e, 0x00, 0x00}},
    {'9', {0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c, 0x00, 0x00}},
    {'A', {0x0e, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11, 0x00, 0x00}},
    {'B', {0x1e, 0x11, 0x11, 0x1e, 0x11, 0x11, 0x1e, 0x00, 0x00}},
    {'C', {0x0e, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0e, 0x00, 0x00}},
    {'D', {0x1c, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1c, 0x00, 0x00}},
    {'E', {0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f, 0x00, 0x00}},
    {'F', {0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x10, 0x00, 0x00}},
    {'G', {0x0e, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0f, 0x00, 0x00}},
    {'H', {0x11, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11, 0x00, 0x00}},
    {'I', {0x0e, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e, 0x00, 0x00}},
    {'J', {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0c, 0x00, 0x00}},
    {'K', {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11, 0x00, 0x00}},
    {'L', {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1f, 0x00, 0x00}},
    {'M', {0x11, 0x1b, 0x15, 0x15, 0x11, 0x11, 0x11, 0x00, 0x00}},
    {'N', {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x00, 0x00}},
    {'O', {0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e, 0x00, 0x00}},
    {'P', {0x1e, 0x11, 0x11, 0x1e, 0x10, 0x10, 0x10, 0x00, 0x00}},
    {'Q', {0x0e, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0d, 0x00, 0x00}},
    {'R', {0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11, 0x00, 0x00}},
    {'S', {0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e, 0x00, 0x00}},
    {'T', {0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x00}},
    {'U', {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e, 0x00, 0x00}},
    {'V', {0x11, 0x11, 0x11, 0x11, 0x11, 0x0a, 0x04, 0x00, 0x00}},
    {'W', {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a, 0x00, 0x00}},
    {'X', {0x11, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x11, 0x00, 0x00}},
    {'Y', {0x11, 0x11, 0x0a, 0x04, 0x04, 0x04, 0x04, 0x00, 0x00}},
    {'Z', {0x1f, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1f, 0x00, 0x00}},
    {'a', {0x00, 0x00, 0x0e, 0x01, 0x0f, 0x11, 0x0f, 0x00, 0x00}},
    {'b', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1e, 0x00, 0x00}},
    {'c', {0x00, 0x00, 0x0e, 0x10, 0x10, 0x11, 0x0e, 0x00, 0x00}},
    {'d', {0x01, 0x01, 0x0d, 0x13, 0x11, 0x11, 0x0f, 0x00, 0x00}},
    {'e', {0x00, 0x00, 0x0e, 0x11, 0x1f, 0x10, 0x0e, 0x00, 0x00}},
    {'f', {0x06, 0x09, 0x08, 0x1c, 0x08, 0x08, 0x08, 0x00, 0x00}},
    {'g', {0x00, 0x00, 0x0f, 0x11, 0x11, 0x11, 0x0f, 0x01, 0x0e}},
    {'h', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00, 0x00}},
    {'i', {0x04, 0x00, 0x0c, 0x04, 0x04, 0x04, 0x0e, 0x00, 0x00}},
    {'j', {0x02, 0x00, 0x06, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0c}},
    {'k', {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12, 0x00, 0x00}},
    {'l', {0x0c, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e, 0x00, 0x00}},
    {'m', {0x00, 0x00, 0x1a, 0x15, 0x15, 0x11, 0x11, 0x00, 0x00}},
    {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00, 0x00}},
    {'o', {0x00, 0x00, 0x0e, 0x11, 0x11, 0x11, 0x0e, 0x00, 0x00}},
    {'p', {0x00, 0x00, 0x1e, 0x11, 0x11, 0x11, 0x1e, 0x10, 0x10}},
    {'q', {0x00, 0x00, 0x0f, 0x11, 0x11, 0x11, 0x0f, 0x01, 0x01}},
    {'r', {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10, 0x00, 0x00}},
    {'s', {0x00, 0x00, 0x0f, 0x10, 0x0e, 0x01, 0x1e, 0x00, 0x00}},
    {'t', {0x08, 0x08, 0x1c, 0x08, 0x08, 0x09, 0x06, 0x00, 0x00}},
    {'u', {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0d, 0x00, 0x00}},
    {'v', {0x00, 0x00, 0x11, 0x11, 0x11, 0x0a, 0x04, 0x00, 0x00}},
    {'w', {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0a, 0x00, 0x00}},
    {'x', {0x00, 0x00, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x00, 0x00}},
    {'y', {0x00, 0x00, 0x11, 0x11, 0x11, 0x11, 0x0f, 0x01, 0x0e}},
    {'z', {0x00, 0x00, 0x1f, 0x02, 0x04, 0x08, 0x1f, 0x00, 0x00}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c, 0x00, 0x00}},
    {'-', {0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00, 0x00, 0x00}},
    {'+', {0x00, 0x04, 0x04, 0x1f, 0x04, 0x04, 0x00, 0x00, 0x00}},
    {'[', {0x0e, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0e, 0x00, 0x00}},
    {']', {0x0e, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0e, 0x00, 0x00}},
    {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02, 0x00, 0x00}},
    {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08, 0x00, 0x00}},
    {'/', {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00, 0x00, 0x00}},
    {'=', {0x00, 0x00, 0x1f, 0x00, 0x1f, 0x00, 0x00, 0x00, 0x00}},
    {',', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c, 0x04, 0x08}},
    {':', {0x00, 0x0c, 0x0c, 0x00, 0x0c, 0x0c, 0x00, 0x00, 0x00}},
    {'%', {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03, 0x00, 0x00}},
    {'?', {0x0e, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04, 0x00, 0x00}},
    {'_', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1f, 0x00, 0x00}},
};

}  // namespace

const std::array<std::uint8_t, glyph_rows>* glyph(char c) {
  for (const auto& g : font)
    if (g.c == c) return &g.rows;
  return nullptr;
}

int text_width(const std::string& text) {
  return text.empty() ? 0 : int(text.size()) * text_advance - figure_text_scale;
}

std::string format_si(double value, const std::string& unit) {
  static const struct {
    double factor;
    const char* prefix;
  } prefixes[] = {{1e9, "G"},  {1e6, "M"},  {1e3, "k"},  {1, ""},
                  {1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}, {1e-12, "p"}};
  char text[64];
  std::snprintf(text, sizeof text, "%.4g", value);
  const double magnitude = std::abs(std::strtod(text, nullptr));  // as printed: 999.96 -> 1000
  std::size_t p = 3;  // no prefix for 0 and non-finite values
  if (magnitude > 0 && std::isfinite(magnitude)) {
    p = std::size(prefixes) - 1;
    for (std::size_t q = 0; q < std::size(prefixes); ++q)
      if (magnitude >= prefixes[q].factor * (1 - 1e-12)) {
        p = q;
        break;
      }
  }
  std::snprintf(text, sizeof text, "%.4g %s%s", value / prefixes[p].factor, prefixes[p].prefix,
                unit.c_str());
  return text;
}

namespace {

using Rgb = std::array<std::uint8_t, 3>;
constexpr Rgb black{0, 0, 0};

// Layout constants (pixels).
constexpr int margin = 12;
constexpr int tick_length = 5;
constexpr int tick_gap = 4;    // tick end to its label
constexpr int label_gap = 10;  // tick labels to the axis label
constexpr int bar_gap = 24;    // plot frame to colour bar frame
constexpr int bar_width = 20;
constexpr int bar_min_height = 200;

struct Canvas {
  int width, height;
  std::vector<std::uint8_t>& rgb;
  void set(int x, int y, const Rgb& c) {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const std::size_t at = 3 * (std::size_t(y) * std::size_t(width) + std::size_t(x));
    rgb[at] = c[0];
    rgb[at + 1] = c[1];
    rgb[at + 2] = c[2];
  }
  void fill(int x, int y, int w, int h, const Rgb& c) {
    for (int v = y; v < y + h; ++v)
      for (int u = x; u < x + w; ++u) set(u, v, c);
  }
  // One-pixel frame just outside box.
  void frame(const PixelBox& b) {
    fill(b.left - 1, b.top - 1, b.width + 2, 1, black);
    fill(b.left - 1, b.top + b.height, b.width + 2, 1, black);
    fill(b.left - 1, b.top - 1, 1, b.height + 2, black);
    fill(b.left + b.width, b.top - 1, 1, b.height + 2, black);
  }
  void text(const FigureText& t) {
    const int s = figure_text_scale;
    const int length = text_width(t.text);
    for (std::size_t n = 0; n < t.text.size(); ++n) {
      const auto* g = glyph(t.text[n]);
      if (g == nullptr) g = glyph('?');
      for (int r = 0; r < glyph_rows; ++r)
        for (int q = 0; q < glyph_columns; ++q) {
          if (((*g)[std::size_t(r)] >> (glyph_columns - 1 - q)) & 1u) {
            // Unturned text pixel (u, v); vertical text maps it to (v, length - 1 - u).
            const int u = int(n) * text_advance + q * s, v = r * s;
            if (t.vertical)
              fill(t.x + v, t.y + length - s - u, s, s, black);
            else
              fill(t.x + u, t.y + v, s, s, black);
          }
        }
    }
  }
};

// A tick label of `value` on an axis with tick spacing `step` whose largest
// |tick| is `largest`: fixed point with as many decimals as the step needs;
// for very large or small ticks, scientific with the exponent of the largest
// for every tick of the axis ("2.0e-5", "1.5e-5", "0.5e-5").
std::string tick_label(double value, double step, double largest) {
  if (std::abs(value) < 1e-9 * step) return "0";
  const int step_exponent = int(std::floor(std::log10(step) + 1e-9));
  // 2.5 x 10^k needs one digit more than 1, 2 or 5 x 10^k.
  const int extra = std::abs(step / std::pow(10.0, step_exponent) - 2.5) < 1e-6 ? 1 : 0;
  char text[64];
  if (largest >= 1e5 || step < 1e-4) {
    const int exponent = int(std::floor(std::log10(largest) + 1e-9));
    std::snprintf(text, sizeof text, "%.*fe%d", std::max(0, exponent - step_exponent + extra),
                  value / std::pow(10.0, exponent), exponent);
    return text;
  }
  std::snprintf(text, sizeof text, "%.*f", std::max(0, extra - step_exponent), value);
  return text;
}

// The same with 4 significant digits (for the exact ends of the colour bar).
std::string end_label(double value) {
  if (value == 0) return "0";
  char text[64];
  std::snprintf(text, sizeof text, "%.4g", value);
  std::string s = text;
  const std::size_t e = s.find('e');
  if (e != std::string::npos) {  // "1.5e-05" -> "1.5e-5", "2e+06" -> "2e6"
    std::string exponent = s.substr(e + 1);
    const char sign = exponent[0];
    exponent = exponent.substr(1);
    while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
    s = s.substr(0, e) + "e" + (sign == '-' ? "-" : "") + exponent;
  }
  return s;
}

// Nice ticks (1, 2, 2.5 or 5 x 10^k apart) in [lo, hi]: the smallest step giving
// at most 6 ticks whose labels keep `min_gap(labels)` pixels apart, where
// `pixels_per_unit` converts a step to pixels.
template <class Gap>
std::vector<std::pair<double, std::string>> nice_ticks(double lo, double hi, double pixels_per_unit,
                                                       Gap min_gap) {
  const double span = hi - lo;
  double decade = std::pow(10.0, std::floor(std::log10(span / 6)));
  std::vector<std::pair<double, std::string>> ticks;
  static const double multipliers[4] = {1, 2, 2.5, 5};
  for (int attempt = 0; attempt < 40; ++attempt) {
    const double step = decade * multipliers[attempt % 4];
    if (attempt % 4 == 3) decade *= 10;
    const double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
    if (last - first + 1 > 6) continue;
    ticks.clear();
    const double largest = std::max(std::abs(first), std::abs(last)) * step;
    for (double k = first; k <= last; ++k) {
      const double v = k == 0 ? 0.0 : k * step;
      ticks.push_back({v, tick_label(v, step, largest)});
    }
    if (step * pixels_per_unit >= min_gap(ticks) || ticks.size() <= 1) return ticks;
  }
  return ticks;
}

}  // namespace

Figure render_figure(std::int64_t columns, std::int64_t rows, const std::vector<float>& values,
                     const FigureSpec& spec) {
  require(columns >= 1 && rows >= 1 && std::int64_t(values.size()) == columns * rows,
          "figure: " + std::to_string(values.size()) + " values for a " + std::to_string(columns) +
              " x " + std::to_string(rows) + " slice",
          "columns x rows values, at least one each");
  require(spec.value_max > spec.value_min && std::isfinite(spec.value_min) &&
              std::isfinite(spec.value_max),
          "figure: value range [" + std::to_string(spec.value_min) + ", " +
              std::to_string(spec.value_max) + "] is empty",
          "finite min < max");
  const FigureAxis& ha = spec.horizontal;
  const FigureAxis& va = spec.vertical;
  require(ha.spacing > 0 && va.spacing > 0 && std::isfinite(ha.first) && std::isfinite(va.first),
          "figure: cell spacing " + std::to_string(ha.spacing) + " x " +
              std::to_string(va.spacing) + " m is not positive",
          "spacings > 0");
  Figure f;
  // Cell blocks: pixels in the ratio of the spacings, the longer side of the
  // plot figure_plot_pixels (rounded down), at least one pixel per cell.
  const double unit_cell = std::min(ha.spacing, va.spacing);
  const double long_side =
      std::max(double(columns) * ha.spacing, double(rows) * va.spacing) / unit_cell;
  const double pixels_per_unit_cell = figure_plot_pixels / long_side;
  f.cell_width = std::max(1, int(std::floor(pixels_per_unit_cell * ha.spacing / unit_cell + 1e-9)));
  f.cell_height =
      std::max(1, int(std::floor(pixels_per_unit_cell * va.spacing / unit_cell + 1e-9)));
  f.plot.width = int(columns) * f.cell_width;
  f.plot.height = int(rows) * f.cell_height;
  f.colour_bar.width = bar_width;
  f.colour_bar.height = std::max(f.plot.height, bar_min_height);

  // Length unit from the slice's larger physical extent.
  const double extent = std::max(double(columns) * ha.spacing, double(rows) * va.spacing);
  f.length_unit = extent >= 1 ? "m" : extent >= 1e-3 ? "mm" : extent >= 1e-6 ? "um" : "nm";
  f.length_scale = extent >= 1 ? 1 : extent >= 1e-3 ? 1e3 : extent >= 1e-6 ? 1e6 : 1e9;
  const double h_lo = (ha.first - 0.5 * ha.spacing) * f.length_scale;
  const double h_hi = (ha.first + (double(columns) - 0.5) * ha.spacing) * f.length_scale;
  const double v_lo = (va.first - 0.5 * va.spacing) * f.length_scale;
  const double v_hi = (va.first + (double(rows) - 0.5) * va.spacing) * f.length_scale;

  const auto widest = [](const std::vector<std::pair<double, std::string>>& t) {
    int w = 0;
    for (const auto& x : t) w = std::max(w, text_width(x.second));
    return w;
  };
  const auto h_ticks = nice_ticks(h_lo, h_hi, f.plot.width / (h_hi - h_lo),
                                  [&](const auto& t) { return widest(t) + 2 * tick_gap; });
  const auto v_ticks = nice_ticks(v_lo, v_hi, f.plot.height / (v_hi - v_lo),
                                  [](const auto&) { return text_height + tick_gap; });
  auto c_ticks = nice_ticks(spec.value_min, spec.value_max,
                            (f.colour_bar.height - 1) / (spec.value_max - spec.value_min),
                            [](const auto&) { return text_height + tick_gap; });
  const std::string c_lo = end_label(spec.value_min), c_hi = end_label(spec.value_max);

  const std::string h_label = ha.name + " [" + f.length_unit + "]";
  const std::string v_label = va.name + " [" + f.length_unit + "]";
  const std::string c_label =
      spec.unit.empty() ? spec.quantity : spec.quantity + " [" + spec.unit + "]";

  // Horizontal layout.
  int v_tick_width = widest(v_ticks);
  f.plot.left = margin + text_height + label_gap + v_tick_width + tick_gap + tick_length + 1;
  f.colour_bar.left = f.plot.left + f.plot.width + 1 + bar_gap + 1;
  int c_tick_width = std::max(text_width(c_lo), text_width(c_hi));
  c_tick_width = std::max(c_tick_width, widest(c_ticks));
  const int c_tick_x = f.colour_bar.left + bar_width + 1 + tick_length + tick_gap;
  const int c_label_x = c_tick_x + c_tick_width + label_gap;
  f.width = std::max(c_label_x + text_height + margin, 2 * margin + text_width(spec.title));

  // Vertical layout.
  const int title_y = margin;
  f.plot.top = title_y + text_height + 16;
  f.colour_bar.top = f.plot.top;
  const int plot_bottom = f.plot.top + f.plot.height;  // first row below the plot
  const int h_tick_y = plot_bottom + 1 + tick_length + tick_gap;
  const int h_label_y = h_tick_y + text_height + label_gap;
  f.height = std::max({h_label_y + text_height + margin,
                       f.colour_bar.top + f.colour_bar.height + text_height / 2 + margin,
                       f.plot.top + text_width(v_label) + margin,
                       f.colour_bar.top + text_width(c_label) + margin});

  // Ticks in pixels.
  const auto clamp_to = [](int p, int lo, int hi) { return std::min(hi, std::max(lo, p)); };
  for (const auto& t : h_ticks)
    f.horizontal_ticks.push_back(
        {t.first,
         clamp_to(f.plot.left + int(std::lround((t.first - h_lo) / (h_hi - h_lo) * f.plot.width)),
                  f.plot.left, f.plot.left + f.plot.width - 1),
         t.second});
  for (const auto& t : v_ticks)
    f.vertical_ticks.push_back(
        {t.first,
         clamp_to(plot_bottom - int(std::lround((t.first - v_lo) / (v_hi - v_lo) * f.plot.height)),
                  f.plot.top, plot_bottom - 1),
         t.second});
  const auto bar_row = [&](double v) {
    return f.colour_bar.top +
           int(std::lround((spec.value_max - v) / (spec.value_max - spec.value_min) *
                           (f.colour_bar.height - 1)));
  };
  // The exact ends, then the nice ticks that keep clear of them.
  f.colour_ticks.push_back({spec.value_max, bar_row(spec.value_max), c_hi});
  f.colour_ticks.push_back({spec.value_min, bar_row(spec.value_min), c_lo});
  for (const auto& t : c_ticks) {
    const int row = bar_row(t.first);
    if (std::abs(row - f.colour_bar.top) >= text_height + tick_gap &&
        std::abs(row - (f.colour_bar.top + f.colour_bar.height - 1)) >= text_height + tick_gap)
      f.colour_ticks.push_back({t.first, row, t.second});
  }

  // Texts.
  f.texts.push_back({spec.title, margin, title_y, false});
  for (const auto& t : f.horizontal_ticks) {
    const int w = text_width(t.label);
    f.texts.push_back({t.label, clamp_to(t.pixel - w / 2, 0, f.width - w), h_tick_y, false});
  }
  for (const auto& t : f.vertical_ticks) {
    const int w = text_width(t.label);
    f.texts.push_back({t.label, f.plot.left - 1 - tick_length - tick_gap - w,
                       clamp_to(t.pixel - text_height / 2, 0, f.height - text_height), false});
  }
  for (const auto& t : f.colour_ticks)
    f.texts.push_back(
        {t.label, c_tick_x, clamp_to(t.pixel - text_height / 2, 0, f.height - text_height), false});
  f.texts.push_back({h_label,
                     clamp_to(f.plot.left + (f.plot.width - text_width(h_label)) / 2, 0,
                              f.width - text_width(h_label)),
                     h_label_y, false});
  f.texts.push_back({v_label, margin,
                     clamp_to(f.plot.top + (f.plot.height - text_width(v_label)) / 2, f.plot.top,
                              f.height - margin - text_width(v_label)),
                     true});
  f.texts.push_back({c_label, c_label_x,
                     clamp_to(f.colour_bar.top + (f.colour_bar.height - text_width(c_label)) / 2,
                              f.colour_bar.top, f.height - margin - text_width(c_label)),
                     true});

  // Draw.
  f.rgb.assign(std::size_t(f.width) * std::size_t(f.height) * 3, 255);
  Canvas canvas{f.width, f.height, f.rgb};
  const double range = spec.value_max - spec.value_min;
  for (std::int64_t row = 0; row < rows; ++row)
    for (std::int64_t col = 0; col < columns; ++col) {
      const double v = values[std::size_t(row * columns + col)];
      canvas.fill(f.plot.left + int(col) * f.cell_width,
                  f.plot.top + int(rows - 1 - row) * f.cell_height, f.cell_width, f.cell_height,
                  colour(spec.map, (v - spec.value_min) / range));
    }
  for (int r = 0; r < f.colour_bar.height; ++r)
    canvas.fill(f.colour_bar.left, f.colour_bar.top + r, bar_width, 1,
                colour(spec.map, 1.0 - double(r) / double(std::max(1, f.colour_bar.height - 1))));
  canvas.frame(f.plot);
  canvas.frame(f.colour_bar);
  for (const auto& t : f.horizontal_ticks)
    canvas.fill(t.pixel, plot_bottom + 1, 1, tick_length, black);
  for (const auto& t : f.vertical_ticks)
    canvas.fill(f.plot.left - 1 - tick_length, t.pixel, tick_length, 1, black);
  for (const auto& t : f.colour_ticks)
    canvas.fill(f.colour_bar.left + bar_width + 1, t.pixel, tick_length, 1, black);
  for (const auto& t : f.texts) canvas.text(t);
  return f;
}

void write_figure_png(const std::string& path, std::int64_t columns, std::int64_t rows,
                      const std::vector<float>& values, const FigureSpec& spec) {
  const Figure f = render_figure(columns, rows, values, spec);
  const auto png = encode_png_rgb(f.width, f.height, f.rgb);
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error("cannot write PNG '" + path + "'", "a writable path");
  out.write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
  if (!out) throw Error("writing PNG '" + path + "' failed");
}

}  // namespace ppkit::image
