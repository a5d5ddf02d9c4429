#include "ppkit/core/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "ppkit/core/error.hpp"

#ifdef PPKIT_HAVE_HDF5
#include <hdf5.h>
#endif

namespace ppkit::checkpoint {
namespace {

constexpr const char* kKindAttribute = "ppkit_checkpoint";
constexpr const char* kVersionAttribute = "format_version";
constexpr const char* kChecksumAttribute = "checksum_fnv1a64";

struct Fnv1a {
  std::uint64_t hash = 1469598103934665603ull;
  void add(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      hash ^= p[i];
      hash *= 1099511628211ull;
    }
  }
  void add(const std::string& s) { add(s.c_str(), s.size() + 1); }
};

const char* type_name(ElementType t) {
  switch (t) {
    case ElementType::f32:
      return "float32";
    case ElementType::f64:
      return "float64";
    case ElementType::i32:
      return "int32";
    case ElementType::i64:
      return "int64";
    case ElementType::u8:
      return "uint8";
    case ElementType::u32:
      return "uint32";
  }
  return "?";
}

}  // namespace

std::uint64_t Content::checksum() const {
  Fnv1a f;
  f.add(kind_);
  for (const auto& [name, d] : datasets_) {
    f.add(name);
    const int type = int(d.type);
    f.add(&type, sizeof type);
    const std::uint64_t n = d.bytes.size();
    f.add(&n, sizeof n);
    f.add(d.bytes.data(), d.bytes.size());
  }
  for (const auto& [name, v] : doubles_) {
    f.add(name);
    f.add(&v, sizeof v);
  }
  for (const auto& [name, v] : integers_) {
    f.add(name);
    f.add(&v, sizeof v);
  }
  return f.hash;
}

void throw_missing(const Content& c, const std::string& name, const char* wanted) {
  throw Error("checkpoint '" + c.source + "' (" + c.kind() + ") has no valid entry '" + name + "'",
              std::string(wanted) + " written by this version of ppkit");
}

double Content::get_double(const std::string& name) const {
  const auto it = doubles_.find(name);
  if (it == doubles_.end()) throw_missing(*this, name, "a float64 attribute");
  return it->second;
}

std::int64_t Content::get_integer(const std::string& name) const {
  const auto it = integers_.find(name);
  if (it == integers_.end()) throw_missing(*this, name, "an int64 attribute");
  return it->second;
}

#ifndef PPKIT_HAVE_HDF5

bool available() { return false; }
void write(const std::string& path, const Content&) {
  throw Error("cannot write checkpoint '" + path + "': this ppkit was built without HDF5",
              "a build with HDF5 (Debian: libhdf5-dev)");
}
Content read(const std::string& path, const std::string&) {
  throw Error("cannot read checkpoint '" + path + "': this ppkit was built without HDF5",
              "a build with HDF5 (Debian: libhdf5-dev)");
}

#else

namespace {

hid_t native(ElementType t) {
  switch (t) {
    case ElementType::f32:
      return H5T_NATIVE_FLOAT;
    case ElementType::f64:
      return H5T_NATIVE_DOUBLE;
    case ElementType::i32:
      return H5T_NATIVE_INT32;
    case ElementType::i64:
      return H5T_NATIVE_INT64;
    case ElementType::u8:
      return H5T_NATIVE_UINT8;
    case ElementType::u32:
      return H5T_NATIVE_UINT32;
  }
  return H5T_NATIVE_UINT8;
}

std::size_t element_size(ElementType t) {
  switch (t) {
    case ElementType::f64:
    case ElementType::i64:
      return 8;
    case ElementType::u8:
      return 1;
    default:
      return 4;
  }
}

// Closes an HDF5 handle at scope exit.
struct Handle {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id >= 0 && close) close(id);
  }
  bool ok() const { return id >= 0; }
};

// HDF5 prints its error stack by default; ppkit reports errors itself.
void silence_hdf5() {
  static const bool once = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)once;
}

bool write_attribute(hid_t file, const char* name, hid_t type, const void* value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  if (!space.ok()) return false;
  Handle attr(H5Acreate2(file, name, type, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  return attr.ok() && H5Awrite(attr.id, type, value) >= 0;
}

bool write_string_attribute(hid_t file, const char* name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (!type.ok() || H5Tset_size(type.id, value.size() + 1) < 0) return false;
  return write_attribute(file, name, type.id, value.c_str());
}

}  // namespace

bool available() { return true; }

void write(const std::string& path, const Content& c) {
  silence_hdf5();
  const std::string tmp = path + ".tmp";
  const std::string valid = "a writable checkpoint path with free space";
  auto fail = [&](const std::string& what, int err) {
    throw Error("writing checkpoint '" + path + "' failed: " + what +
                    (err ? std::string(" (") + std::strerror(err) + ")" : ""),
                valid);
  };
  // The HDF5 file is built in memory (core driver, no backing store) and its
  // image written with plain POSIX calls: a full disk or a vanished directory
  // is then an ordinary write error, never a half-closed HDF5 file.
  std::vector<unsigned char> image;
  {
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (!fapl.ok() || H5Pset_fapl_core(fapl.id, 1 << 20, 0) < 0)
      fail("HDF5 cannot create an in-memory file", 0);
    Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.id), H5Fclose);
    if (!file.ok()) fail("HDF5 cannot create an in-memory file", 0);
    const std::int64_t version = format_version;
    const std::uint64_t sum = c.checksum();
    if (!write_string_attribute(file.id, kKindAttribute, c.kind()) ||
        !write_attribute(file.id, kVersionAttribute, H5T_NATIVE_INT64, &version))
      fail("cannot write the header attributes", 0);
    for (const auto& [name, v] : c.doubles())
      if (!write_attribute(file.id, name.c_str(), H5T_NATIVE_DOUBLE, &v))
        fail("cannot write attribute '" + name + "'", 0);
    for (const auto& [name, v] : c.integers())
      if (!write_attribute(file.id, name.c_str(), H5T_NATIVE_INT64, &v))
        fail("cannot write attribute '" + name + "'", 0);
    for (const auto& [name, d] : c.datasets()) {
      const hsize_t n = d.bytes.size() / element_size(d.type);
      Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
      Handle set(H5Dcreate2(file.id, name.c_str(), native(d.type), space.id, H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT),
                 H5Dclose);
      if (!space.ok() || !set.ok() ||
          (n > 0 &&
           H5Dwrite(set.id, native(d.type), H5S_ALL, H5S_ALL, H5P_DEFAULT, d.bytes.data()) < 0))
        fail("cannot write dataset '" + name + "' (out of host memory?)", 0);
    }
    if (!write_attribute(file.id, kChecksumAttribute, H5T_NATIVE_UINT64, &sum))
      fail("cannot write the checksum", 0);
    if (H5Fflush(file.id, H5F_SCOPE_GLOBAL) < 0) fail("HDF5 cannot flush the in-memory file", 0);
    const ssize_t size = H5Fget_file_image(file.id, nullptr, 0);
    if (size <= 0) fail("HDF5 cannot produce the file image", 0);
    image.resize(std::size_t(size));
    if (H5Fget_file_image(file.id, image.data(), std::size_t(size)) != size)
      fail("HDF5 cannot produce the file image", 0);
  }
  // Temporary file, fsync, rename: a run killed at any moment keeps the previous checkpoint.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create '" + tmp + "'", errno);
  std::size_t done = 0;
  while (done < image.size()) {
    const ssize_t n = ::write(fd, image.data() + done, image.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      std::remove(tmp.c_str());
      fail("cannot write '" + tmp + "' (" + std::to_string(done) + " of " +
               std::to_string(image.size()) + " bytes written)",
           err);
    }
    done += std::size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    fail("cannot sync '" + tmp + "' to disk", err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    fail("cannot rename '" + tmp + "' over it", err);
  }
}

Content read(const std::string& path, const std::string& expected_kind) {
  silence_hdf5();
  const std::string valid = "a complete " + expected_kind + " checkpoint (format version " +
                            std::to_string(format_version) + ") written by ppkit";
  auto fail = [&](const std::string& what) {
    throw Error("checkpoint '" + path + "' " + what, valid);
  };
  if (::access(path.c_str(), R_OK) != 0)
    fail("cannot be read: " + std::string(std::strerror(errno)));
  if (H5Fis_hdf5(path.c_str()) <= 0) fail("is not an HDF5 file (truncated or corrupted?)");
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) fail("cannot be opened as HDF5 (truncated or corrupted?)");

  // Kind (a string attribute) first: says whether this is a ppkit checkpoint at all.
  std::string kind;
  {
    Handle attr(H5Aopen(file.id, kKindAttribute, H5P_DEFAULT), H5Aclose);
    if (!attr.ok()) fail("has no '" + std::string(kKindAttribute) + "' attribute");
    Handle type(H5Aget_type(attr.id), H5Tclose);
    if (!type.ok() || H5Tget_class(type.id) != H5T_STRING || H5Tis_variable_str(type.id) > 0)
      fail("has a malformed '" + std::string(kKindAttribute) + "' attribute");
    const std::size_t size = H5Tget_size(type.id);
    if (size == 0 || size > 256) fail("has a malformed kind attribute");
    std::vector<char> buffer(size + 1, '\0');
    if (H5Aread(attr.id, type.id, buffer.data()) < 0) fail("kind attribute cannot be read");
    kind = buffer.data();
  }
  if (kind != expected_kind) fail("holds a '" + kind + "' checkpoint, not '" + expected_kind + "'");
  Content c(kind);
  c.source = path;

  // Attributes: version, checksum and the run's scalars.
  std::uint64_t stored_sum = 0;
  bool have_sum = false, have_version = false;
  Handle root(H5Gopen2(file.id, "/", H5P_DEFAULT), H5Gclose);
  if (!root.ok()) fail("has no readable root group");
  std::vector<std::string> attribute_names;
  const auto collect = [](hid_t, const char* name, const H5A_info_t*, void* names) -> herr_t {
    static_cast<std::vector<std::string>*>(names)->push_back(name);
    return 0;
  };
  if (H5Aiterate2(root.id, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &attribute_names) < 0)
    fail("has unreadable attributes");
  for (const std::string& key : attribute_names) {
    Handle attr(H5Aopen(root.id, key.c_str(), H5P_DEFAULT), H5Aclose);
    if (!attr.ok()) fail("has an unreadable attribute '" + key + "'");
    if (key == kKindAttribute) continue;
    Handle type(H5Aget_type(attr.id), H5Tclose);
    const H5T_class_t cls = H5Tget_class(type.id);
    if (key == kChecksumAttribute) {
      have_sum = H5Aread(attr.id, H5T_NATIVE_UINT64, &stored_sum) >= 0;
    } else if (cls == H5T_FLOAT) {
      double v = 0;
      if (H5Aread(attr.id, H5T_NATIVE_DOUBLE, &v) < 0)
        fail("attribute '" + key + "' is unreadable");
      c.put_scalar(key, v);
    } else if (cls == H5T_INTEGER) {
      std::int64_t v = 0;
      if (H5Aread(attr.id, H5T_NATIVE_INT64, &v) < 0) fail("attribute '" + key + "' is unreadable");
      if (key == kVersionAttribute) {
        have_version = true;
        if (v != format_version)
          fail("has format version " + std::to_string(v) + ", this ppkit reads version " +
               std::to_string(format_version));
      } else {
        c.put_scalar(key, v);
      }
    } else {
      fail("has an attribute '" + key + "' of an unexpected type");
    }
  }
  if (!have_version) fail("has no format version");
  if (!have_sum) fail("has no checksum (the write was interrupted?)");

  // Datasets: 1-D arrays of the six element types.
  H5G_info_t info;
  if (H5Gget_info(root.id, &info) < 0) fail("has an unreadable root group");
  for (hsize_t k = 0; k < info.nlinks; ++k) {
    char name[256] = {};
    if (H5Lget_name_by_idx(root.id, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name,
                           H5P_DEFAULT) < 0)
      fail("has an unreadable dataset name");
    Handle set(H5Dopen2(root.id, name, H5P_DEFAULT), H5Dclose);
    if (!set.ok()) fail("dataset '" + std::string(name) + "' cannot be opened");
    Handle type(H5Dget_type(set.id), H5Tclose);
    Handle space(H5Dget_space(set.id), H5Sclose);
    if (!type.ok() || !space.ok() || H5Sget_simple_extent_ndims(space.id) != 1)
      fail("dataset '" + std::string(name) + "' is not a 1-D array");
    hsize_t n = 0;
    H5Sget_simple_extent_dims(space.id, &n, nullptr);
    Dataset d;
    bool known = false;
    for (ElementType t : {ElementType::f32, ElementType::f64, ElementType::i32, ElementType::i64,
                          ElementType::u8, ElementType::u32})
      if (H5Tequal(type.id, native(t)) > 0) {
        d.type = t;
        known = true;
        break;
      }
    if (!known) fail("dataset '" + std::string(name) + "' has an unexpected element type");
    d.bytes.resize(std::size_t(n) * element_size(d.type));
    if (n > 0 && H5Dread(set.id, native(d.type), H5S_ALL, H5S_ALL, H5P_DEFAULT, d.bytes.data()) < 0)
      fail("dataset '" + std::string(name) + "' (" + type_name(d.type) +
           ") cannot be read (truncated?)");
    c.datasets()[name] = std::move(d);
  }
  if (c.checksum() != stored_sum)
    fail("fails its checksum: the file is corrupted (stored " + std::to_string(stored_sum) +
         ", computed " + std::to_string(c.checksum()) + ")");
  return c;
}

#endif

}  // namespace ppkit::checkpoint
