#include "ppkit/mpi/halo_path.hpp"

#include "ppkit/core/error.hpp"
#include "ppkit/mpi/mpi_runtime.hpp"

namespace ppkit::mpi {

HaloPath parse_halo_path(const std::string& text) {
  if (text == "auto") return HaloPath::automatic;
  if (text == "direct" || text == "device" || text == "cuda-aware") return HaloPath::direct;
  if (text == "staged") return HaloPath::staged;
  throw Error("unknown halo path '" + text + "'", "auto, direct (device, cuda-aware), staged");
}

bool halo_is_direct(HaloPath path, bool data_in_host_memory) {
  switch (path) {
    case HaloPath::automatic:
      return data_in_host_memory || mpi_reports_cuda_aware();
    case HaloPath::direct:
      return true;
    case HaloPath::staged:
      return false;
  }
  return false;
}

std::string halo_path_name(bool direct, bool data_in_host_memory) {
  return !direct ? "staged" : data_in_host_memory ? "host-direct" : "cuda-aware";
}

}  // namespace ppkit::mpi
