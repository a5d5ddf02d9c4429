#pragma once
// Size of the copy-bandwidth probe behind every roofline fraction
// (CompareContext::bandwidth, stream_copy.hpp). By default 2^26 doubles
// (512 MiB) per buffer: several times the largest last-level cache, so the
// probe measures memory. A command that runs one case of known size (`ppkit
// sem axhelm`, `sem nekbone`) sizes it to that case: its footprint, but never
// below 2^23 doubles (64 MiB per buffer, 128 MiB moved per copy: above the
// 60 MB L2 of an H200 and a CPU core's L3). Measurements are kept per
// process, per backend and size, so repeated contexts measure once.
#include <cstddef>
#include <string>

namespace ppkit {

constexpr std::size_t kCopyProbeMinDoubles = std::size_t(1) << 23;
constexpr std::size_t kCopyProbeMaxDoubles = std::size_t(1) << 26;

std::size_t copy_probe_doubles();
// Doubles per buffer for the probes of this process from now on, clamped to
// [kCopyProbeMinDoubles, kCopyProbeMaxDoubles].
void size_copy_probe_to(double case_bytes);

}  // namespace ppkit
