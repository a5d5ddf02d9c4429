#!/usr/bin/env bash
# Compiles ppkit's Python extension for another CPython than this machine's
# (a GPU node's), with the compiler and flags of a configured build directory
# (Makefile generator, PPKIT_BUILD_PYTHON on) and that Python's headers, and
# puts it beside a copy of python/ppkit in OUT/ppkit:
#   scripts/python-extension-for.sh BUILD_DIR "INCLUDE_DIR[;INCLUDE_DIR...]" SOABI OUT
# The extension links the build's libppkit (found through LD_LIBRARY_PATH or
# the bundle's lib/ at run time). Example, the Python 3.12 of Ubuntu 24.04:
#   apt-get download libpython3.12-dev   (from the Ubuntu archive), then
#   dpkg-deb -x libpython3.12-dev_*.deb py312
#   scripts/python-extension-for.sh build/h100 "py312/usr/include/python3.12;py312/usr/include" \
#       cpython-312-x86_64-linux-gnu out        # then PYTHONPATH=out there
set -euo pipefail
build=$(cd "${1:?usage: python-extension-for.sh BUILD_DIR INCLUDE_DIRS SOABI OUT}" && pwd)
includes=${2:?INCLUDE_DIRS}
soabi=${3:?SOABI, e.g. cpython-312-x86_64-linux-gnu}
out=${4:?OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
flags_of() {  # FLAGS_FILE VARIABLE
  sed -n "s/^$2 = //p" "$1"
}
dir=$build/python/CMakeFiles
[ -f "$dir/_ppkit.dir/flags.make" ] || { echo "no Python extension in $build (PPKIT_BUILD_PYTHON, Makefile generator)"; exit 2; }
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
python_include=()
IFS=';' read -ra dirs <<< "$includes"
for d in "${dirs[@]}"; do python_include+=("-I$(cd "$d" && pwd)"); done
# This machine's Python include directory is dropped from the build's flags.
own_python=$(sed -n 's/^_Python_INCLUDE_DIR:INTERNAL=//p' "$build/CMakeCache.txt")
[ -n "$own_python" ] || { echo "no Python include directory in $build/CMakeCache.txt"; exit 2; }
strip_python() { sed "s#-I$own_python # #g"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nb_src=$(dirname "$(sed -n 's/^CXX_INCLUDES = .*-I\([^ ]*nanobind\/include\).*/\1/p' "$dir/nanobind-static.dir/flags.make")")/src
# shellcheck disable=SC2046
$cxx $(flags_of "$dir/nanobind-static.dir/flags.make" CXX_FLAGS) $(flags_of "$dir/nanobind-static.dir/flags.make" CXX_DEFINES) \
  "${python_include[@]}" $(flags_of "$dir/nanobind-static.dir/flags.make" CXX_INCLUDES | strip_python) \
  -c "$nb_src/nb_combined.cpp" -o "$work/nb_combined.o"
# shellcheck disable=SC2046
$cxx $(flags_of "$dir/_ppkit.dir/flags.make" CXX_FLAGS) $(flags_of "$dir/_ppkit.dir/flags.make" CXX_DEFINES) \
  "${python_include[@]}" $(flags_of "$dir/_ppkit.dir/flags.make" CXX_INCLUDES | strip_python) \
  -c "$root/python/src/module.cpp" -o "$work/module.o"
mkdir -p "$out/ppkit"
cp "$root"/python/ppkit/*.py "$out/ppkit/"
# The build's own link line with the objects and the output name replaced.
link=$(sed -e "s#CMakeFiles/_ppkit.dir/src/module.cpp.o#$work/module.o#" \
           -e "s#libnanobind-static.a#$work/nb_combined.o#" \
           -e "s#-o [^ ]*_ppkit[^ ]*\.so#-o $(cd "$out/ppkit" && pwd)/_ppkit.$soabi.so#" "$dir/_ppkit.dir/link.txt")
(cd "$build/python" && eval "$link")
echo "$out/ppkit/_ppkit.$soabi.so"
