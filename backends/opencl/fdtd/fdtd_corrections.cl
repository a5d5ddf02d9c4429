// Plane-wave (total-field/scattered-field) consistency corrections of one field
// component, applied after the main H or E update (Taflove & Hagness 3rd ed.
// sec. 5.8; the entries come from ppkit/fdtd/plane_wave.hpp):
//   field[node] += w0 row[slot0] + w1 row[slot1],  row = incident + row_offset,
// one work-item per entry, no node twice in one list. Shared by opencl/plain
// and opencl/float4 (whose node indices are already pitched by the host).
__kernel void tfsf_correct(long count, __global const long* node, __global const float* w0,
                           __global const float* w1, __global const int* slot0,
                           __global const int* slot1, __global const float* incident,
                           __global float* field, long row_offset) {
  const long q = get_global_id(0);
  if (q >= count) return;
  __global const float* row = incident + row_offset;
  field[node[q]] += w0[q] * row[slot0[q]] + w1[q] * row[slot1[q]];
}
