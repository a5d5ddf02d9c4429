#pragma once
// Checks on decoded figures (image_figure.hpp) that need nothing from the
// renderer but the font table: where the plot frame is, and whether a text
// line appears, pixel for pixel, somewhere in the image.
#include <string>
#include <vector>

#include "harness/png_decode.hpp"
#include "ppkit/core/image_figure.hpp"

namespace ppkit::testing {

inline bool is_black(const DecodedPng& d, int x, int y) {
  const auto p = d.pixel(x, y);
  return p[0] == 0 && p[1] == 0 && p[2] == 0;
}

// The plot area: inside the longest horizontal black run of the image (the
// top of the plot's frame; glyphs and ticks are at most 10 pixels wide, the
// colour bar's frame 22) and the black column going down from its left end.
inline image::PixelBox find_plot_frame(const DecodedPng& d) {
  int best = 0, bx = 0, by = 0;
  for (int y = 0; y < d.height; ++y)
    for (int x = 0; x < d.width;) {
      int run = 0;
      while (x + run < d.width && is_black(d, x + run, y)) ++run;
      if (run > best) best = run, bx = x, by = y;
      x += run > 0 ? run : 1;
    }
  int down = 0;
  while (by + down < d.height && is_black(d, bx, by + down)) ++down;
  return {bx + 1, by + 1, best - 2, down - 2};
}

// The pixels of a text line as the figure draws it (black on white), from
// the glyph table: mask[v * w + u], w x h (vertical text: turned 90 degrees
// counter-clockwise, reading bottom to top).
struct TextMask {
  int w = 0, h = 0;
  std::vector<char> on;
};
inline TextMask text_mask(const std::string& text, bool vertical) {
  const int s = image::figure_text_scale;
  const int length = image::text_width(text), tall = image::text_height;
  TextMask m;
  m.w = vertical ? tall : length;
  m.h = vertical ? length : tall;
  m.on.assign(std::size_t(m.w * m.h), 0);
  for (std::size_t n = 0; n < text.size(); ++n) {
    const auto* g = image::glyph(text[n]);
    for (int v = 0; v < tall; ++v)
      for (int u = 0; u < image::text_advance - s && u + int(n) * image::text_advance < length;
           ++u) {
        const bool bit =
            g != nullptr && (((*g)[std::size_t(v / s)] >> (image::glyph_columns - 1 - u / s)) & 1u);
        const int x = int(n) * image::text_advance + u;
        if (vertical)
          m.on[std::size_t((length - 1 - x) * m.w + v)] = bit;
        else
          m.on[std::size_t(v * m.w + x)] = bit;
      }
  }
  return m;
}

// Whether the text's pixels match the image exactly at (x, y): black where
// a glyph has a pixel, white elsewhere in its box.
inline bool text_at(const DecodedPng& d, const TextMask& m, int x, int y) {
  if (x < 0 || y < 0 || x + m.w > d.width || y + m.h > d.height) return false;
  for (int v = 0; v < m.h; ++v)
    for (int u = 0; u < m.w; ++u) {
      const auto p = d.pixel(x + u, y + v);
      const bool black = p[0] == 0 && p[1] == 0 && p[2] == 0;
      const bool white = p[0] == 255 && p[1] == 255 && p[2] == 255;
      if (m.on[std::size_t(v * m.w + u)] ? !black : !white) return false;
    }
  return true;
}

// Whether the text appears anywhere in the image.
inline bool contains_text(const DecodedPng& d, const std::string& text, bool vertical = false) {
  const TextMask m = text_mask(text, vertical);
  for (int y = 0; y + m.h <= d.height; ++y)
    for (int x = 0; x + m.w <= d.width; ++x)
      if (text_at(d, m, x, y)) return true;
  return false;
}

}  // namespace ppkit::testing
