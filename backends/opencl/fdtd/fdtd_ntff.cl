// Near-to-far-field transform for opencl/plain and opencl/float4 (ppkit/fdtd/
// ntff.hpp; Taflove & Hagness 3rd ed. ch. 8): the running DFT of the surface
// samples, then the radiation vectors {N_theta, N_phi, L_theta, L_phi} (eight
// real sums) as two kernels with a power-of-two local-memory tree reduction,
// as the FDTD-on-OpenCL study does for its four-variable sum.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

// After step s: re/im[f * samples + q] += value x {Re, Im} dt exp(-j w t).
__kernel void ntff_accumulate(long samples, long frequencies, __global const int* component,
                              __global const long* node_a, __global const long* node_b,
                              __global const float* factors, long factor_offset,
                              __global double* re, __global double* im, __global const float* ex,
                              __global const float* ey, __global const float* ez,
                              __global const float* hx, __global const float* hy,
                              __global const float* hz) {
  const long q = get_global_id(0);
  if (q >= samples) return;
  const int c = component[q];
  __global const float* field = c == 0   ? ex
                                : c == 1 ? ey
                                : c == 2 ? ez
                                : c == 3 ? hx
                                : c == 4 ? hy
                                         : hz;
  const double value = 0.5 * ((double)field[node_a[q]] + (double)field[node_b[q]]);
  const int part = c < 3 ? 0 : 2;
  for (long f = 0; f < frequencies; ++f) {
    re[f * samples + q] += value * (double)factors[factor_offset + f * 4 + part];
    im[f * samples + q] += value * (double)factors[factor_offset + f * 4 + part + 1];
  }
}

// Tree reduction of the eight rows sdata[m * L + tx] (L = local size, a power of two).
inline void local_tree_sum8(__local double* sdata) {
  const int tx = get_local_id(0), L = get_local_size(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = L / 2; s > 0; s >>= 1) {
    if (tx < s)
      for (int m = 0; m < 8; ++m) sdata[m * L + tx] += sdata[m * L + tx + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// First pass: each work-group sums its samples' contributions to the eight sums.
// directions[d * 9 ..]: kx, ky, kz, theta x/y/z, phi x/y/z of (frequency, direction) d.
__kernel void ntff_partial(long samples, long f, __global const double* directions, long d,
                           __global const int* current, __global const int* magnetic,
                           __global const float* weight, __global const float* x,
                           __global const float* y, __global const float* z,
                           __global const double* re_all, __global const double* im_all,
                           __global double* out, __local double* sdata) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  __global const double* dir = directions + d * 9;
  __global const double* re = re_all + f * samples;
  __global const double* im = im_all + f * samples;
  for (long q = get_global_id(0); q < samples; q += get_global_size(0)) {
    const double w = weight[q];
    const double vr = re[q] * w, vi = im[q] * w;
    const double phase = dir[0] * x[q] + dir[1] * y[q] + dir[2] * z[q];
    const double c = cos(phase), s = sin(phase);
    const double tr = vr * c - vi * s, ti = vr * s + vi * c;
    const int comp = current[q];
    const double th = dir[3 + comp], ph = dir[6 + comp];
    const int first = magnetic[q] ? 4 : 0;
    acc[first] += tr * th;
    acc[first + 1] += ti * th;
    acc[first + 2] += tr * ph;
    acc[first + 3] += ti * ph;
  }
  const int tx = get_local_id(0), L = get_local_size(0);
  for (int m = 0; m < 8; ++m) sdata[m * L + tx] = acc[m];
  local_tree_sum8(sdata);
  if (tx == 0)
    for (int m = 0; m < 8; ++m) out[get_group_id(0) * 8 + m] = sdata[m * L];
}

// Second pass, one work-group: the group partials to the eight sums.
__kernel void ntff_final(long groups, __global const double* in, __global double* out,
                         __local double* sdata) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (long g = get_local_id(0); g < groups; g += get_local_size(0))
    for (int m = 0; m < 8; ++m) acc[m] += in[g * 8 + m];
  const int tx = get_local_id(0), L = get_local_size(0);
  for (int m = 0; m < 8; ++m) sdata[m * L + tx] = acc[m];
  local_tree_sum8(sdata);
  if (tx == 0)
    for (int m = 0; m < 8; ++m) out[m] = sdata[m * L];
}
