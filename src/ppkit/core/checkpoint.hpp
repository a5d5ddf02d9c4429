#pragma once
// Checkpoint files of long runs (docs/reliability.md): HDF5, so that h5dump,
// h5py or any HDF5 tool can open them. One file holds
//   root attributes  ppkit_checkpoint = <kind> ("sph", "fdtd"), format_version,
//                    the run's scalars (time, step, ...) and checksum_fnv1a64;
//   datasets         one 1-D dataset per array, named after what it holds
//                    ("x", "ez", "psi_ezx", "probe_values", ...).
// The checksum is FNV-1a (64 bit) over every dataset's name, type and bytes and
// every scalar's name and value, in name order; reading verifies it, so a
// corrupted or truncated file is an error naming the file and what was wrong.
// Files are written to "<path>.tmp", flushed to disk and renamed over <path>,
// so a run killed while writing keeps its previous checkpoint intact.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ppkit::checkpoint {

constexpr int format_version = 1;

// False when ppkit was built without HDF5 (then reading and writing throw).
bool available();

enum class ElementType : int { f32 = 0, f64 = 1, i32 = 2, i64 = 3, u8 = 4, u32 = 5 };

struct Dataset {
  ElementType type = ElementType::f32;
  std::vector<unsigned char> bytes;
};

// The whole content of one checkpoint, in memory.
class Content {
 public:
  explicit Content(std::string kind = "") : kind_(std::move(kind)) {}

  const std::string& kind() const { return kind_; }

  template <class T>
  void put(const std::string& name, const std::vector<T>& values);
  void put_scalar(const std::string& name, double value) { doubles_[name] = value; }
  void put_scalar(const std::string& name, std::int64_t value) { integers_[name] = value; }

  // Throw ppkit::Error naming the file when the entry is absent or has another type.
  template <class T>
  std::vector<T> get(const std::string& name) const;
  double get_double(const std::string& name) const;
  std::int64_t get_integer(const std::string& name) const;
  bool has(const std::string& name) const { return datasets_.count(name) != 0; }

  std::uint64_t checksum() const;

  // Set by read(): the file it came from, for messages.
  std::string source;

  const std::map<std::string, Dataset>& datasets() const { return datasets_; }
  const std::map<std::string, double>& doubles() const { return doubles_; }
  const std::map<std::string, std::int64_t>& integers() const { return integers_; }
  std::map<std::string, Dataset>& datasets() { return datasets_; }
  std::map<std::string, double>& doubles() { return doubles_; }
  std::map<std::string, std::int64_t>& integers() { return integers_; }

 private:
  std::string kind_;
  std::map<std::string, Dataset> datasets_;
  std::map<std::string, double> doubles_;
  std::map<std::string, std::int64_t> integers_;
};

// Writes atomically (temporary file + rename). Throws ppkit::Error naming the
// file when it cannot be created, written (disk full) or renamed.
void write(const std::string& path, const Content& content);

// Reads and verifies kind, format version and checksum. Throws ppkit::Error
// naming the file and what was wrong (missing, not HDF5, truncated, another
// kind or version, checksum mismatch).
Content read(const std::string& path, const std::string& expected_kind);

// ---- implementation of the templates -----------------------------------------
template <class T>
constexpr ElementType element_type_of();
template <>
constexpr ElementType element_type_of<float>() {
  return ElementType::f32;
}
template <>
constexpr ElementType element_type_of<double>() {
  return ElementType::f64;
}
template <>
constexpr ElementType element_type_of<std::int32_t>() {
  return ElementType::i32;
}
template <>
constexpr ElementType element_type_of<std::int64_t>() {
  return ElementType::i64;
}
template <>
constexpr ElementType element_type_of<std::uint8_t>() {
  return ElementType::u8;
}
template <>
constexpr ElementType element_type_of<std::uint32_t>() {
  return ElementType::u32;
}

// Throws the error of a get() that found the wrong entry.
[[noreturn]] void throw_missing(const Content& c, const std::string& name, const char* wanted);

template <class T>
void Content::put(const std::string& name, const std::vector<T>& values) {
  Dataset d;
  d.type = element_type_of<T>();
  const auto* p = reinterpret_cast<const unsigned char*>(values.data());
  d.bytes.assign(p, p + values.size() * sizeof(T));
  datasets_[name] = std::move(d);
}

template <class T>
std::vector<T> Content::get(const std::string& name) const {
  const auto it = datasets_.find(name);
  if (it == datasets_.end() || it->second.type != element_type_of<T>() ||
      it->second.bytes.size() % sizeof(T) != 0)
    throw_missing(*this, name, "an array of the expected type");
  std::vector<T> out(it->second.bytes.size() / sizeof(T));
  if (!out.empty())
    std::copy(it->second.bytes.begin(), it->second.bytes.end(),
              reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

}  // namespace ppkit::checkpoint
