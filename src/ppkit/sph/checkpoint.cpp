#include "ppkit/sph/checkpoint.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "ppkit/core/error.hpp"

namespace ppkit::sph {
namespace {

constexpr char kMagic[8] = {'P', 'P', 'K', 'S', 'P', 'H', 'C', 'K'};
constexpr std::uint32_t kVersion = 1;

std::uint64_t fnv1a(const std::vector<char>& bytes, std::size_t n) {
  std::uint64_t hash = 1469598103934665603ull;
  for (std::size_t i = 0; i < n; ++i) {
    hash ^= static_cast<unsigned char>(bytes[i]);
    hash *= 1099511628211ull;
  }
  return hash;
}

template <class T>
void put(std::vector<char>& out, const T& value) {
  const char* p = reinterpret_cast<const char*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}
template <class T>
void put_array(std::vector<char>& out, const std::vector<T>& v) {
  const char* p = reinterpret_cast<const char*>(v.data());
  out.insert(out.end(), p, p + v.size() * sizeof(T));
}

struct Reader {
  const std::vector<char>& bytes;
  std::size_t pos = 0;
  const std::string& path;
  template <class T>
  T get() {
    T value;
    need(sizeof(T));
    std::memcpy(&value, bytes.data() + pos, sizeof(T));
    pos += sizeof(T);
    return value;
  }
  template <class T>
  void get_array(std::vector<T>& v, std::size_t n) {
    need(n * sizeof(T));
    v.resize(n);
    std::memcpy(v.data(), bytes.data() + pos, n * sizeof(T));
    pos += n * sizeof(T);
  }
  void need(std::size_t n) const {
    if (pos + n > bytes.size())
      throw Error("checkpoint '" + path + "' is truncated", "a complete file written by ppkit sph");
  }
};

}  // namespace

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  std::vector<char> out;
  out.insert(out.end(), kMagic, kMagic + 8);
  put(out, kVersion);
  put(out, std::uint32_t(0));
  put(out, std::uint64_t(c.particles.size()));
  put(out, c.time);
  put(out, c.step);
  put(out, c.dp);
  put(out, c.h);
  const auto& s = c.particles;
  for (const auto* v : {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.rho}) put_array(out, *v);
  put_array(out, s.kind);
  put_array(out, s.id);
  put(out, fnv1a(out, out.size()));
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw Error("cannot write checkpoint '" + tmp + "'", "a writable path");
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    f.flush();
    if (!f) throw Error("writing checkpoint '" + tmp + "' failed (disk full?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw Error("cannot rename '" + tmp + "' to '" + path + "'");
}

Checkpoint read_checkpoint(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("cannot read checkpoint '" + path + "'", "a file written by --checkpoint");
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::string valid = "a checkpoint written by ppkit sph (format version 1)";
  if (bytes.size() < 8 + 8 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    throw Error("'" + path + "' is not an SPH checkpoint", valid);
  Reader r{bytes, 8, path};
  const auto version = r.get<std::uint32_t>();
  if (version != kVersion)
    throw Error("checkpoint '" + path + "' has format version " + std::to_string(version), valid);
  r.get<std::uint32_t>();
  const auto n = static_cast<std::size_t>(r.get<std::uint64_t>());
  Checkpoint c;
  c.time = r.get<double>();
  c.step = r.get<std::int64_t>();
  c.dp = r.get<double>();
  c.h = r.get<double>();
  auto& s = c.particles;
  for (auto* v : {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.rho}) r.get_array(*v, n);
  r.get_array(s.kind, n);
  r.get_array(s.id, n);
  const std::size_t payload = r.pos;
  const auto stored = r.get<std::uint64_t>();
  if (stored != fnv1a(bytes, payload))
    throw Error("checkpoint '" + path + "' fails its checksum (corrupted file)", valid);
  return c;
}

}  // namespace ppkit::sph
