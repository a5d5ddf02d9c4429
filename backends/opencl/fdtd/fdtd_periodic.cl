// Periodic lateral boundaries of opencl/plain and opencl/float4 (contract in
// src/ppkit/fdtd/yee_kernel_args.hpp): with electric = 0, H of the face 0 is
// copied to the face n before the E update; with electric = 1, E of the face
// n is copied to the face 0 after the sources. axis 1 (y): global ids (k, i)
// over rows j = 0 / ny, copying Hx, Hz or Ex, Ez; axis 0 (x): ids (k, j) over
// planes i = 0 / nx, copying Hy, Hz or Ey, Ez. Node (i * (ny+1) + j) * pz + k.
__kernel void periodic_copy(long nx, long ny, long nz, long pz, int axis, int electric,
                            __global float* ex, __global float* ey, __global float* ez,
                            __global float* hx, __global float* hy, __global float* hz) {
  const long k = get_global_id(0), other = get_global_id(1);
  if (k > nz) return;
  long low, high;
  __global float *a, *b;
  if (axis == 1) {
    if (other > nx) return;
    low = other * (ny + 1) * pz + k;
    high = low + ny * pz;
    a = electric ? ex : hx;
  } else {
    if (other > ny) return;
    low = other * pz + k;
    high = low + nx * (ny + 1) * pz;
    a = electric ? ey : hy;
  }
  b = electric ? ez : hz;
  if (electric) {
    a[low] = a[high];
    b[low] = b[high];
  } else {
    a[high] = a[low];
    b[high] = b[low];
  }
}
