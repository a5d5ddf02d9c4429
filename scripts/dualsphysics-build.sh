#!/usr/bin/env bash
# Builds the DualSPHysics v5.0 GPU solver from its public sources with CUDA 12.x/13.x for one
# GPU architecture, and lays out a folder that scripts/dualsphysics-beside.sh runs from:
#
#   DSPH_DIR/DualSPHysics5.0_linux64   the GPU solver built here (stripped)
#   DSPH_DIR/GenCase_linux64           DualSPHysics' precompiled case generator (copied, stripped)
#   DSPH_DIR/spheric_test2_Def.xml     ppkit's SPHERIC test 2 case (perf/sph/dualsphysics)
#   DSPH_DIR/lib/libgomp.so.1          this system's OpenMP runtime, used only where the
#                                      machine that runs them lacks one
#
# Usage: scripts/dualsphysics-build.sh SRC_DIR DSPH_DIR [GENCASE]
#   SRC_DIR  a checkout of https://github.com/DualSPHysics/DualSPHysics at a v5.0 tag
#            (holding src/source/Makefile and src/lib/linux_gcc)
#   DSPH_DIR output folder (created)
#   GENCASE  the GenCase_linux64 binary to copy (default SRC_DIR/bin/linux/GenCase_linux64;
#            any v5.0.x GenCase writes the case format the v5.0 solver reads)
# Environment: CUDA_HOME (default /usr/local/cuda), SM (default 90), JOBS (default 2).
#
# Nothing from SRC_DIR is changed: the sources are copied to DSPH_DIR/.build and the copy
# gets these edits, needed for CUDA 13, which removed some cudaDeviceProp fields:
#   clockRate, memoryClockRate, deviceOverlap, kernelExecTimeoutEnabled
#   -> the same values from cudaDeviceGetAttribute (FunctionsCuda.cpp, the GPU info print).
# The Makefile's CUDA 9.2 architecture list (sm_30 ... sm_70; CUDA 13 accepts sm_75 and newer)
# and toolkit folder are replaced on make's command line. Chrono (floating bodies coupled to
# Project Chrono) is left out: its libChronoEngine.so is not needed by fluid-only cases.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
SRC=$(cd "$1" && pwd)
OUT=$2
GENCASE=${3:-$SRC/bin/linux/GenCase_linux64}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
SM=${SM:-90}
JOBS=${JOBS:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
CASE_XML=$HERE/../perf/sph/dualsphysics/spheric_test2_Def.xml

for f in "$SRC/src/source/Makefile" "$SRC/src/source/FunctionsCuda.cpp" \
  "$SRC/src/lib/linux_gcc/libjvtklib_64.a"; do
  if [[ ! -f $f ]]; then
    echo "error: $f not found; SRC_DIR must be a DualSPHysics v5.0 source tree" >&2
    exit 1
  fi
done
if [[ ! -f $GENCASE ]]; then
  echo "error: GenCase binary $GENCASE not found; pass its path as the third argument" >&2
  exit 1
fi
if [[ ! -x $CUDA_HOME/bin/nvcc ]]; then
  echo "error: $CUDA_HOME/bin/nvcc not found; set CUDA_HOME to a CUDA toolkit" >&2
  exit 1
fi

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=$OUT/.build
rm -rf "$BUILD"
mkdir -p "$BUILD"
cp -r "$SRC/src/source" "$SRC/src/lib" "$BUILD/"

# CUDA 13: cudaDeviceProp lost these fields; read them with cudaDeviceGetAttribute instead.
F=$BUILD/source/FunctionsCuda.cpp
sed -i \
  -e 's/g\.clockrate=deviceProp\.clockRate;/cudaDeviceGetAttribute(\&g.clockrate,cudaDevAttrClockRate,gid);/' \
  -e 's/g\.clockratemem=deviceProp\.memoryClockRate;/cudaDeviceGetAttribute(\&g.clockratemem,cudaDevAttrMemoryClockRate,gid);/' \
  -e 's/g\.overlap=deviceProp\.deviceOverlap;/cudaDeviceGetAttribute(\&g.overlap,cudaDevAttrGpuOverlap,gid);/' \
  -e 's/g\.limitrun=deviceProp\.kernelExecTimeoutEnabled;/cudaDeviceGetAttribute(\&g.limitrun,cudaDevAttrKernelExecTimeout,gid);/' \
  "$F"
if grep -nE 'deviceProp\.(clockRate|memoryClockRate|deviceOverlap|kernelExecTimeoutEnabled)' "$F"; then
  echo "error: FunctionsCuda.cpp still reads removed cudaDeviceProp fields (lines above);" \
    "this script knows the v5.0 sources only" >&2
  exit 1
fi

cd "$BUILD/source"
# Variables given on make's command line override the Makefile's own assignments.
make -j"$JOBS" \
  CUDAVER=00 DIRTOOLKIT="$CUDA_HOME" NCC="$CUDA_HOME/bin/nvcc" \
  GENCODE="-gencode=arch=compute_$SM,code=sm_$SM" \
  COMPILE_CHRONO=NO EXECS_DIRECTORY="$OUT"

cd "$OUT"
strip "$OUT/DualSPHysics5.0_linux64"
cp "$GENCASE" "$OUT/GenCase_linux64"
chmod +x "$OUT/GenCase_linux64" "$OUT/DualSPHysics5.0_linux64"
strip "$OUT/GenCase_linux64"
if [[ -f $CASE_XML ]]; then cp "$CASE_XML" "$OUT/"; fi
gomp=$(ldd "$OUT/DualSPHysics5.0_linux64" | awk '/libgomp/ {print $3}')
if [[ -n $gomp && -f $gomp ]]; then
  mkdir -p "$OUT/lib"
  cp -L "$gomp" "$OUT/lib/"
fi
rm -rf "$BUILD"
echo "DualSPHysics built for sm_$SM in $OUT:"
ls -l "$OUT"
echo "shared libraries the solver needs:"
ldd "$OUT/DualSPHysics5.0_linux64" || true
