// fdtd.phasor_update (src/ppkit/fdtd/phasors.hpp): one work-item per box node
// (global ids: k, j, i of the box) reads the node's six field values once and
// updates the running sums of every frequency. coef[coef_offset + 4 f ..]:
// {re_E, im_E, re_H, im_H} = w exp(-i 2 pi f t) of the current sample. Field node
// (lo0 + bi) * sx + (lo1 + bj) * sy + lo2 + bk, box node b = (bi * n1 + bj) * n2 + bk.

#define PHASOR_FIELD_LOADS                                                                    \
  const long bk = get_global_id(0), bj = get_global_id(1), bi = get_global_id(2);             \
  if (bi >= n0 || bj >= n1 || bk >= n2) return;                                               \
  const long node = (lo0 + bi) * sx + (lo1 + bj) * sy + lo2 + bk;                             \
  const long b = (bi * n1 + bj) * n2 + bk;                                                    \
  const float vex = ex[node], vey = ey[node], vez = ez[node], vhx = hx[node], vhy = hy[node], \
              vhz = hz[node];

// opencl/plain: the natural layout re[(f * 6 + c) * box_nodes + b], im likewise.
__kernel void phasor_plain(long n0, long n1, long n2, long lo0, long lo1, long lo2, long sx,
                           long sy, long box_nodes, long frequencies, __global const float* ex,
                           __global const float* ey, __global const float* ez,
                           __global const float* hx, __global const float* hy,
                           __global const float* hz, __global const float* coef, long coef_offset,
                           __global float* re, __global float* im) {
  PHASOR_FIELD_LOADS
  const float value[6] = {vex, vey, vez, vhx, vhy, vhz};
  for (long f = 0; f < frequencies; ++f) {
    const float4 c = vload4(f, coef + coef_offset);
    for (int q = 0; q < 6; ++q) {
      const long at = (f * 6 + q) * box_nodes + b;
      re[at] += (q < 3 ? c.s0 : c.s2) * value[q];
      im[at] += (q < 3 ? c.s1 : c.s3) * value[q];
    }
  }
}

// opencl/float4: 3 float4 per node and frequency, Re/Im interleaved, so one
// node's 12 sums are three 16-byte loads and stores:
//   sums[(f * box_nodes + b) * 3 + 0] = (Re Ex, Im Ex, Re Ey, Im Ey)
//   sums[(f * box_nodes + b) * 3 + 1] = (Re Ez, Im Ez, Re Hx, Im Hx)
//   sums[(f * box_nodes + b) * 3 + 2] = (Re Hy, Im Hy, Re Hz, Im Hz)
__kernel void phasor_float4(long n0, long n1, long n2, long lo0, long lo1, long lo2, long sx,
                            long sy, long box_nodes, long frequencies, __global const float* ex,
                            __global const float* ey, __global const float* ez,
                            __global const float* hx, __global const float* hy,
                            __global const float* hz, __global const float* coef, long coef_offset,
                            __global float4* sums) {
  PHASOR_FIELD_LOADS
  const float4 e01 = (float4)(vex, vex, vey, vey), e2h0 = (float4)(vez, vez, vhx, vhx),
               h12 = (float4)(vhy, vhy, vhz, vhz);
  for (long f = 0; f < frequencies; ++f) {
    const float4 c = vload4(f, coef + coef_offset);
    const float4 ce = c.s0101, ch = c.s2323;  // (re_E, im_E, re_E, im_E), (re_H, im_H, ...)
    __global float4* s = sums + (f * box_nodes + b) * 3;
    s[0] += ce * e01;
    s[1] += c * e2h0;
    s[2] += ch * h12;
  }
}
