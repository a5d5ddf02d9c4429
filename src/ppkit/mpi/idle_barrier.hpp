#pragma once
// A barrier for ranks that sit out part of a run (a scaling study on the
// first R ranks of the launch, a single-device reference on rank 0): it
// polls MPI_Ibarrier with short sleeps instead of MPI's busy wait, so that on
// oversubscribed hosts (CI, more ranks than cores) the idle ranks leave the
// cores to the ranks being timed. Costs up to one sleep interval of latency.
// Built only with PPKIT_ENABLE_MPI.
#include <mpi.h>

#include <chrono>
#include <thread>

namespace ppkit::mpi {

inline void idle_barrier(MPI_Comm comm,
                         std::chrono::microseconds poll = std::chrono::microseconds(2000)) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(poll);
  }
}

}  // namespace ppkit::mpi
