// Kernels shared by opencl/plain and opencl/float4: point sources, probes and
// the power-of-two local-memory tree reduction (for s = L/2; s > 0; s >>= 1:
// if (tx < s) sdata[tx] += sdata[tx + s]; barrier) used by the energy sums.

// Periodic lateral axes, set by the host through -DPERIODIC_X=1 / -DPERIODIC_Y=1.
#ifndef PERIODIC_X
#define PERIODIC_X 0
#endif
#ifndef PERIODIC_Y
#define PERIODIC_Y 0
#endif

// One work-item: sources in order, so two on one node both apply.
// The sources at nodes [node_begin, node_end) (a range of x-planes), in order.
__kernel void apply_sources(long n_sources, long step, long steps, __global const long* index,
                            __global const int* component, __global const int* hard,
                            __global const float* values, __global float* ex, __global float* ey,
                            __global float* ez, long node_begin, long node_end) {
  if (get_global_id(0) != 0) return;
  for (long q = 0; q < n_sources; ++q) {
    if (index[q] < node_begin || index[q] >= node_end) continue;
    __global float* e = component[q] == 0 ? ex : component[q] == 1 ? ey : ez;
    const float value = values[q * steps + step];
    e[index[q]] = hard[q] ? value : e[index[q]] + value;
  }
}

__kernel void record_probes(long n_probes, long step, long steps, __global const long* index,
                            __global const int* component, __global const float* ex,
                            __global const float* ey, __global const float* ez,
                            __global const float* hx, __global const float* hy,
                            __global const float* hz, __global float* out) {
  const long q = get_global_id(0);
  if (q >= n_probes) return;
  const int c = component[q];
  const long n = index[q];
  const float v = c == 0   ? ex[n]
                  : c == 1 ? ey[n]
                  : c == 2 ? ez[n]
                  : c == 3 ? hx[n]
                  : c == 4 ? hy[n]
                           : hz[n];
  out[q * steps + step] = v;
}

// Tree reduction of sdata[0..L) (L = get_local_size(0), a power of two).
inline void local_tree_sum(__local float* sdata) {
  const int tx = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (tx < s) sdata[tx] += sdata[tx + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// Second pass: partial sums of `in` per work-group.
__kernel void reduce_sum(long n, __global const float* in, __global float* out,
                         __local float* sdata) {
  float acc = 0;
  for (long m = get_global_id(0); m < n; m += get_global_size(0)) acc += in[m];
  sdata[get_local_id(0)] = acc;
  local_tree_sum(sdata);
  if (get_local_id(0) == 0) out[get_group_id(0)] = sdata[0];
}

// First pass for opencl/plain: 1/2 (eps E^2 + mu H^2) per node, summed per work-group.
__kernel void energy_partial(long nodes, __global const float* ex, __global const float* ey,
                             __global const float* ez, __global const float* hx,
                             __global const float* hy, __global const float* hz,
                             __global const uint* material, __global const float* table,
                             __global float* out, __local float* sdata) {
  float acc = 0;
  for (long n = get_global_id(0); n < nodes; n += get_global_size(0)) {
    __global const float* coef = table + material[n] * 8;
    const float e2 = ex[n] * ex[n] + ey[n] * ey[n] + ez[n] * ez[n];
    const float h2 = hx[n] * hx[n] + hy[n] * hy[n] + hz[n] * hz[n];
    acc += 0.5f * (coef[3] * e2 + coef[4] * h2);
  }
  sdata[get_local_id(0)] = acc;
  local_tree_sum(sdata);
  if (get_local_id(0) == 0) out[get_group_id(0)] = sdata[0];
}
