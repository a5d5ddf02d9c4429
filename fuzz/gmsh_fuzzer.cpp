// libFuzzer target: the Gmsh .msh 4.1 reader on arbitrary bytes. A malformed
// mesh must end in ppkit::Error (naming the file and line), never in a crash,
// a leak, undefined behaviour or another exception type.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "ppkit/core/error.hpp"
#include "ppkit/fem/gmsh_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const ppkit::fem::HexMesh mesh = ppkit::fem::read_gmsh(in, "fuzz.msh");
    // Every element must refer to nodes that exist: the reader promises it.
    if (mesh.elements.size() % 8 != 0) __builtin_trap();
    for (const auto node : mesh.elements)
      if (node < 0 || node >= mesh.num_nodes()) __builtin_trap();
    for (const auto& group : mesh.node_groups)
      for (const auto node : group.second)
        if (node < 0 || node >= mesh.num_nodes()) __builtin_trap();
  } catch (const ppkit::Error&) {
  }
  return 0;
}
