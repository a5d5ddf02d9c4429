# Sourced by the GPU scripts: makes NVIDIA's OpenCL driver reachable through an
# ICD loader. The loader comes from the node or, when it has none, from a
# Debian ocl-icd-libopencl1 .deb passed in PPKIT_OCL_ICD_DEB (unpacked under
# /tmp); the driver's ICD entry is written when missing and /etc is writable.
if [ -n "${PPKIT_OCL_ICD_DEB:-}" ] && ! ldconfig -p | grep -q 'libOpenCL.so.1'; then
  dpkg -x "$PPKIT_OCL_ICD_DEB" /tmp/ocl-icd
  export LD_LIBRARY_PATH="/tmp/ocl-icd/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
nv_opencl=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')
if [ -n "$nv_opencl" ] && [ ! -e /etc/OpenCL/vendors/nvidia.icd ] && [ -w /etc ]; then
  mkdir -p /etc/OpenCL/vendors && echo "$nv_opencl" > /etc/OpenCL/vendors/nvidia.icd
fi
