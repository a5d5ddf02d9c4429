#pragma once
// SAR (sar.hpp) of a phasor box whose x node planes are spread over MPI
// ranks, as the MPI slabs leave them (mpi_slabs.hpp): each rank computes the
// maps of the cells whose lower x plane it holds, with no rank holding the
// whole box.
//  - Cell-centre |E|^2 of a rank's last cell row needs the next node plane:
//    its E phasors come from the rank holding it.
//  - The 1 g / 10 g cube averages need point SAR from neighbouring rows: a
//    rank takes a window of `halo` cell rows per side from the ranks holding
//    them (any number of ranks away) and averages its own rows there; while
//    some rank's cube reaches past its window, every rank doubles the halo
//    and averages again (sar.hpp, averaged_sar_rows). The answer is the
//    single-process one (compute_sar on the whole box) up to the rounding of
//    the summed-volume tables, which start at the window instead of the box.
//  - Mass, absorbed power and the peaks are reduced over the ranks.
// Built only with PPKIT_ENABLE_MPI.
#include <mpi.h>

#include <vector>

#include "ppkit/fdtd/sar.hpp"

namespace ppkit::fdtd {

// `local`: this rank's phasors, lo[0] in global node planes, holding the
// box's planes [plane_begin[rank], plane_begin[rank + 1]) (empty when there
// are none); plane_begin: ranks + 1 ascending global node planes, the first
// equal to the box's lo[0] and the last to its end. `input` as for compute_sar
// except that `phasors` is ignored: sigma and rho cover every cell of the
// box (every rank passes the same). Collective over comm. Every rank returns
// the box's mass, absorbed power, whole-body SAR and peaks; the maps hold the
// rank's own cell rows (maps.origin, maps.cells), or, with gather_maps, every
// cell of the box on rank 0.
SarMaps compute_sar_slabs(MPI_Comm comm, const PhasorSet& local,
                          const std::vector<index_t>& plane_begin, const SarInput& input,
                          bool gather_maps);

}  // namespace ppkit::fdtd
