#pragma once
// Output paths checked before any work (docs/cli.md, "Outputs"): one rule for
// every command and every output. The directory an output goes into is
// created when it is missing, with its parents (as `mkdir -p`), and must then
// accept new files: a probe file is created and removed there, which also
// catches read-only and pseudo file systems (/proc, /sys) that permission
// bits do not show. A path naming an existing directory is refused where a
// file is expected. Errors are ppkit::Error (bad input) naming the option, the
// path and the operating system's reason (strerror).
#include <string>

namespace ppkit {

// A file a command will write (a CSV, a VTU, a checkpoint, ...): its directory
// created when missing and checked; an existing file there is replaced.
void require_writable_file(const std::string& path, const std::string& option);

// A directory a command writes files into (`compare --out`, `sph dambreak --vtk`):
// created when missing and checked.
void require_writable_directory(const std::string& directory, const std::string& option);

}  // namespace ppkit
