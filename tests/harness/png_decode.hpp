#pragma once
// A small PNG reader for tests, written from the specifications rather than
// shared with the writer: PNG (ISO/IEC 15948: chunks with CRC-32, 8-bit RGB,
// no interlace, the five scanline filters), zlib (RFC 1950: header and
// Adler-32) and inflate (RFC 1951: stored, fixed and dynamic Huffman blocks).
// It reads what ppkit writes with or without zlib, and reports any deviation
// in `error` instead of guessing.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace ppkit::testing {

struct DecodedPng {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // 3 bytes per pixel, top row first
  std::string error;              // empty when the file decoded
  std::array<std::uint8_t, 3> pixel(int x, int y) const {
    const std::size_t at = 3 * (std::size_t(y) * std::size_t(width) + std::size_t(x));
    return {rgb[at], rgb[at + 1], rgb[at + 2]};
  }
};

namespace png_detail {

struct Bits {
  const std::vector<std::uint8_t>& in;
  std::size_t pos = 0;
  std::uint32_t buffer = 0;
  int count = 0;
  int get(int need) {  // LSB-first bit fields (RFC 1951 sec. 3.1.1)
    while (count < need) {
      if (pos >= in.size()) throw std::runtime_error("deflate stream ends early");
      buffer |= std::uint32_t(in[pos++]) << count;
      count += 8;
    }
    const int v = int(buffer & ((1u << need) - 1u));
    buffer >>= need;
    count -= need;
    return v;
  }
};

// Canonical Huffman code (RFC 1951 sec. 3.2.2): codes per length and the
// symbols in code order.
struct Huffman {
  std::array<int, 16> count{};
  std::vector<int> symbol;
  Huffman(const int* length, int n) : symbol(std::size_t(n)) {
    for (int s = 0; s < n; ++s) ++count[std::size_t(length[s])];
    count[0] = 0;
    std::array<int, 16> offset{};
    for (int len = 1; len < 15; ++len)
      offset[std::size_t(len + 1)] = offset[std::size_t(len)] + count[std::size_t(len)];
    for (int s = 0; s < n; ++s)
      if (length[s] != 0) symbol[std::size_t(offset[std::size_t(length[s])]++)] = s;
  }
  int decode(Bits& b) const {  // codes are read MSB first, one bit at a time
    int code = 0, first = 0, index = 0;
    for (int len = 1; len <= 15; ++len) {
      code |= b.get(1);
      const int n = count[std::size_t(len)];
      if (code - n < first) return symbol[std::size_t(index + code - first)];
      index += n;
      first = (first + n) << 1;
      code <<= 1;
    }
    throw std::runtime_error("invalid Huffman code");
  }
};

inline void inflate_block(Bits& b, std::vector<std::uint8_t>& out, const Huffman& lit,
                          const Huffman& dist) {
  static const int length_base[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                      15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
  static const int length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  static const int distance_base[30] = {
      1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
      193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
  static const int distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                         6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
  for (;;) {
    const int s = lit.decode(b);
    if (s < 256) {
      out.push_back(std::uint8_t(s));
    } else if (s == 256) {
      return;
    } else {
      if (s > 285) throw std::runtime_error("invalid length symbol");
      const int len = length_base[s - 257] + b.get(length_extra[s - 257]);
      const int d = dist.decode(b);
      if (d > 29) throw std::runtime_error("invalid distance symbol");
      const std::size_t back = std::size_t(distance_base[d] + b.get(distance_extra[d]));
      if (back > out.size()) throw std::runtime_error("distance before the start");
      for (int k = 0; k < len; ++k) out.push_back(out[out.size() - back]);
    }
  }
}

inline std::vector<std::uint8_t> inflate_zlib(const std::vector<std::uint8_t>& z) {
  if (z.size() < 6 || (z[0] & 0x0f) != 8 || ((z[0] << 8) | z[1]) % 31 != 0 || (z[1] & 0x20))
    throw std::runtime_error("not a zlib stream (RFC 1950 header)");
  std::vector<std::uint8_t> body(z.begin() + 2, z.end());
  Bits b{body};
  std::vector<std::uint8_t> out;
  int final_block = 0;
  while (!final_block) {
    final_block = b.get(1);
    const int type = b.get(2);
    if (type == 0) {  // stored: byte-aligned LEN, NLEN, data
      b.buffer = 0, b.count = 0;
      if (b.pos + 4 > body.size()) throw std::runtime_error("stored block header cut");
      const int len = body[b.pos] | body[b.pos + 1] << 8;
      const int nlen = body[b.pos + 2] | body[b.pos + 3] << 8;
      if (len != (~nlen & 0xffff)) throw std::runtime_error("stored block LEN != ~NLEN");
      b.pos += 4;
      if (b.pos + std::size_t(len) > body.size()) throw std::runtime_error("stored block cut");
      out.insert(out.end(), body.begin() + std::ptrdiff_t(b.pos),
                 body.begin() + std::ptrdiff_t(b.pos + std::size_t(len)));
      b.pos += std::size_t(len);
    } else if (type == 1) {  // fixed codes (sec. 3.2.6)
      int lengths[288 + 30];
      for (int s = 0; s < 288; ++s) lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
      for (int s = 0; s < 30; ++s) lengths[288 + s] = 5;
      inflate_block(b, out, Huffman(lengths, 288), Huffman(lengths + 288, 30));
    } else if (type == 2) {  // dynamic codes (sec. 3.2.7)
      const int nlit = b.get(5) + 257, ndist = b.get(5) + 1, ncode = b.get(4) + 4;
      static const int order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                    11, 4,  12, 3, 13, 2, 14, 1, 15};
      int code_lengths[19] = {};
      for (int k = 0; k < ncode; ++k) code_lengths[order[k]] = b.get(3);
      const Huffman lencode(code_lengths, 19);
      int lengths[288 + 32] = {};
      for (int k = 0; k < nlit + ndist;) {
        const int s = lencode.decode(b);
        if (s < 16) {
          lengths[k++] = s;
          continue;
        }
        int repeat = 0, value = 0;
        if (s == 16) {
          if (k == 0) throw std::runtime_error("repeat with no previous length");
          value = lengths[k - 1], repeat = 3 + b.get(2);
        } else {
          repeat = s == 17 ? 3 + b.get(3) : 11 + b.get(7);
        }
        if (k + repeat > nlit + ndist) throw std::runtime_error("too many code lengths");
        while (repeat--) lengths[k++] = value;
      }
      inflate_block(b, out, Huffman(lengths, nlit), Huffman(lengths + nlit, ndist));
    } else {
      throw std::runtime_error("reserved deflate block type");
    }
  }
  // Adler-32 of the data, big-endian, after the deflate stream's last byte.
  std::uint32_t a = 1, c = 0;
  for (std::uint8_t v : out) a = (a + v) % 65521u, c = (c + a) % 65521u;
  const std::size_t at = 2 + b.pos;
  if (at + 4 > z.size()) throw std::runtime_error("Adler-32 missing");
  const std::uint32_t stored = std::uint32_t(z[at]) << 24 | std::uint32_t(z[at + 1]) << 16 |
                               std::uint32_t(z[at + 2]) << 8 | z[at + 3];
  if (stored != ((c << 16) | a)) throw std::runtime_error("Adler-32 mismatch");
  return out;
}

inline std::uint32_t crc32(const std::uint8_t* p, std::size_t n) {
  std::uint32_t crc = 0xffffffffu;
  for (std::size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

inline std::uint32_t be32(const std::vector<std::uint8_t>& v, std::size_t at) {
  return std::uint32_t(v[at]) << 24 | std::uint32_t(v[at + 1]) << 16 |
         std::uint32_t(v[at + 2]) << 8 | v[at + 3];
}

}  // namespace png_detail

inline DecodedPng decode_png(const std::string& path) {
  using namespace png_detail;
  DecodedPng d;
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    const std::vector<std::uint8_t> file((std::istreambuf_iterator<char>(in)),
                                         std::istreambuf_iterator<char>());
    static const std::uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (file.size() < 8 || !std::equal(signature, signature + 8, file.begin()))
      throw std::runtime_error("no PNG signature");
    std::vector<std::uint8_t> idat;
    bool ended = false;
    for (std::size_t at = 8; !ended;) {
      if (at + 12 > file.size()) throw std::runtime_error("chunk cut");
      const std::size_t len = be32(file, at);
      if (at + 12 + len > file.size()) throw std::runtime_error("chunk cut");
      const std::string type(file.begin() + std::ptrdiff_t(at + 4),
                             file.begin() + std::ptrdiff_t(at + 8));
      if (crc32(file.data() + at + 4, len + 4) != be32(file, at + 8 + len))
        throw std::runtime_error("CRC mismatch in " + type);
      const std::size_t data = at + 8;
      if (type == "IHDR") {
        d.width = int(be32(file, data));
        d.height = int(be32(file, data + 4));
        if (file[data + 8] != 8 || file[data + 9] != 2 || file[data + 12] != 0)
          throw std::runtime_error("not 8-bit RGB without interlace");
      } else if (type == "IDAT") {
        idat.insert(idat.end(), file.begin() + std::ptrdiff_t(data),
                    file.begin() + std::ptrdiff_t(data + len));
      } else if (type == "IEND") {
        ended = true;
      }
      at += 12 + len;
    }
    const std::vector<std::uint8_t> raw = inflate_zlib(idat);
    const std::size_t stride = 3 * std::size_t(d.width);
    if (raw.size() != std::size_t(d.height) * (stride + 1))
      throw std::runtime_error("image data has the wrong size");
    d.rgb.assign(std::size_t(d.height) * stride, 0);
    for (std::size_t y = 0; y < std::size_t(d.height); ++y) {
      const int filter = raw[y * (stride + 1)];
      const std::uint8_t* line = raw.data() + y * (stride + 1) + 1;
      std::uint8_t* row = d.rgb.data() + y * stride;
      const std::uint8_t* up = y > 0 ? row - stride : nullptr;
      for (std::size_t x = 0; x < stride; ++x) {
        const int a = x >= 3 ? row[x - 3] : 0, b = up ? up[x] : 0,
                  c = (x >= 3 && up) ? up[x - 3] : 0;
        int predictor = 0;
        switch (filter) {
          case 0:
            break;
          case 1:
            predictor = a;
            break;
          case 2:
            predictor = b;
            break;
          case 3:
            predictor = (a + b) / 2;
            break;
          case 4: {  // Paeth
            const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b),
                      pc = std::abs(p - c);
            predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            break;
          }
          default:
            throw std::runtime_error("unknown filter type");
        }
        row[x] = std::uint8_t(line[x] + predictor);
      }
    }
  } catch (const std::exception& e) {
    d.error = e.what();
  }
  return d;
}

}  // namespace ppkit::testing
