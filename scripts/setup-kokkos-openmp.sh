#!/usr/bin/env bash
# Prints the prefix of a Kokkos with OpenMP (and Serial) for the host build, so
# the Kokkos rows use every CPU core: `export Kokkos_ROOT=$(scripts/setup-kokkos-openmp.sh)`.
#
# Debian 12's libtrilinos-kokkos-dev is Kokkos 3.4.01 with Serial only. When
# the installed Kokkos lacks OpenMP, this builds the same Kokkos and Kokkos
# Kernels from Debian's own trilinos source package (packages/kokkos and
# packages/kokkos-kernels, standalone CMake projects) with Serial + OpenMP,
# once, into a per-user cache outside the clone:
#   ${PPKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ppkit}/kokkos-<version>-openmp-<compiler>
# and reuses it on later runs. The source comes through apt (a private deb-src
# list, checked against Debian's signed index; nothing on the system changes
# and no root is needed); only those two packages are extracted from the 166 MB
# trilinos tarball, which is deleted after.
#
# Prints nothing (and the caller keeps Debian's Serial Kokkos) when Kokkos_ROOT
# is already set (it is printed unchanged), when the installed Kokkos already
# has OpenMP, when PPKIT_KOKKOS_OPENMP=0, or when the build is impossible (no
# network, no source package): it then says why on stderr and exits 0.
# Messages go to stderr; stdout carries only the prefix.
set -euo pipefail

say() { echo "ppkit setup: $*" >&2; }
fallback() {
  say "$*"
  say "the Kokkos rows use the installed Kokkos (Serial: one CPU core); run this script again to retry"
  exit 0
}

if [ -n "${Kokkos_ROOT:-}" ]; then
  echo "$Kokkos_ROOT"
  exit 0
fi
[ "${PPKIT_KOKKOS_OPENMP:-1}" = 0 ] && exit 0

config_h=/usr/include/trilinos/KokkosCore_config.h
[ -f "$config_h" ] || fallback "Debian's Kokkos ($config_h) is not installed (scripts/setup-debian.sh installs it)"
if grep -q "^#define KOKKOS_ENABLE_OPENMP" "$config_h"; then
  exit 0  # the installed Kokkos already runs on every core
fi

# Key: the Kokkos version Debian ships and the compiler CMake will use.
kokkos_version=$(sed -n 's/^#define KOKKOS_VERSION \([0-9]*\)$/\1/p' "$config_h")
[ -n "$kokkos_version" ] || fallback "no KOKKOS_VERSION in $config_h"
kokkos_version=$(printf '%d.%d.%02d' $((kokkos_version / 10000)) $((kokkos_version / 100 % 100)) \
  $((kokkos_version % 100)))
cxx=${CXX:-c++}
command -v "$cxx" >/dev/null || fallback "no C++ compiler ($cxx)"
if "$cxx" -dM -E -x c++ /dev/null | grep -q __clang__; then
  compiler=clang-$("$cxx" -dumpversion)
else
  compiler=gcc-$("$cxx" -dumpfullversion)
fi
cache=${PPKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ppkit}
prefix=$cache/kokkos-$kokkos_version-openmp-$compiler
stamp=$prefix/ppkit-build.txt

if [ -f "$stamp" ]; then
  echo "$prefix"
  exit 0
fi

mkdir -p "$cache" || fallback "cannot create the cache directory $cache"
# One build at a time (scripts/compare.sh and scripts/test.sh may start together).
exec 9>"$prefix.lock"
flock 9
if [ -f "$stamp" ]; then
  echo "$prefix"
  exit 0
fi

source_version=$(dpkg-query -W -f='${source:Version}' libtrilinos-kokkos-dev 2>/dev/null) \
  || fallback "cannot read the version of libtrilinos-kokkos-dev"
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || fallback "no VERSION_CODENAME in /etc/os-release"
mirror=${PPKIT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
jobs=${PPKIT_KOKKOS_JOBS:-2}

say "Kokkos $kokkos_version has no OpenMP here: building it with Serial + OpenMP from Debian's" \
  "trilinos $source_version source into $prefix (once; about a minute on 2 cores)"
start=$(date +%s)
work=$(mktemp -d "$cache/.kokkos-build.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A private apt configuration: only a deb-src line for the release, its own
# lists and caches, so the system's apt state stays as it is.
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/download"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $codename main" \
  >"$work/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
  -o Acquire::Retries=1 -o Acquire::http::Timeout=30 -o APT::Sandbox::User="$(id -un)"
  -o Acquire::Languages=none -qq)
apt-get "${apt_opts[@]}" --error-on=any update >&2 || fallback "cannot read the Debian source index from $mirror"
(cd "$work/download" && apt-get "${apt_opts[@]}" source --download-only "trilinos=$source_version" >&2) \
  || fallback "cannot download the source package trilinos $source_version"
origs=("$work"/download/trilinos_*.orig.tar.*)
orig=${origs[0]}
[ -f "$orig" ] || fallback "no trilinos orig tarball in the source package"
mkdir "$work/src"
tar -xf "$orig" -C "$work/src" --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*' \
  || fallback "cannot extract packages/kokkos and packages/kokkos-kernels from $(basename "$orig")"
rm -rf "$work/download"
sources=("$work"/src/*/packages)
packages=${sources[0]}

# Shared libraries (libppkit is shared); C++17 like ppkit; no tests. Kokkos
# Kernels without pre-instantiated kernels (ETI): ppkit instantiates the few it
# calls, so its library is 5 small files instead of hundreds.
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=1
fi
rm -rf "$prefix"
build() {  # build <name> <source> <cmake options...>
  local name=$1 src=$2
  shift 2
  cmake -S "$src" -B "$work/build-$name" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=ON "$@" \
    >"$work/$name.log" 2>&1 \
    && cmake --build "$work/build-$name" -j"$jobs" >>"$work/$name.log" 2>&1 \
    && cmake --install "$work/build-$name" >>"$work/$name.log" 2>&1 \
    || { tail -30 "$work/$name.log" >&2; rm -rf "$prefix"; fallback "building $name failed"; }
}
build Kokkos "$packages/kokkos" -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON \
  -DKokkos_CXX_STANDARD=17 -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF
build KokkosKernels "$packages/kokkos-kernels" -DKokkos_ROOT="$prefix" \
  -DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_ENABLE_TESTS=OFF \
  -DKokkosKernels_ENABLE_EXAMPLES=OFF
{
  echo "Kokkos and Kokkos Kernels $kokkos_version (Serial + OpenMP), shared libraries, C++17, Release"
  echo "source: Debian trilinos $source_version ($(basename "$orig"), packages/kokkos and"
  echo "  packages/kokkos-kernels) from $mirror"
  echo "compiler: $("$cxx" --version | head -1)"
  echo "built by ppkit's scripts/setup-kokkos-openmp.sh in $(($(date +%s) - start)) s with -j$jobs"
} >"$stamp"
say "Kokkos with OpenMP built in $(($(date +%s) - start)) s: $prefix"
echo "$prefix"
