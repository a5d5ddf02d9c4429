#pragma once
// ppkit::Runtime initialises Kokkos when nobody has, and finalises it only if
// it did, so ppkit works both standalone and inside a host code that owns
// Kokkos already.
namespace ppkit {

class Runtime {
 public:
  Runtime();                         // no command-line arguments for Kokkos
  Runtime(int& argc, char* argv[]);  // passes --kokkos-* arguments to Kokkos
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  bool owns_kokkos() const { return owns_kokkos_; }

 private:
  bool owns_kokkos_ = false;
};

}  // namespace ppkit
