// ppkit_fp64_mma_rates: what each fp64 tensor-core shape of mma.sync gives on
// the device (sm_80: m8n8k4; sm_90 adds m16n8k4, m16n8k8, m16n8k16), next to
// the FP64 FMA rate: the ceilings behind the SEM tensor-core kernels
// (docs/sem.md). For each shape it checks the fragment layout the kernels
// assume (PTX ISA, "matrix fragments for mma.m16n8k*" with .f64) against a
// host product, then times independent products on every SM and one
// dependent chain (latency), 16 warps per SM. docs/sem.md quotes its output
// on an H200: m16n8k4 issues at m8n8k4's instruction rate with twice the
// work, which is what the cuda/trilinear-wmma-m16 kernel builds on.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

#define CHECK(call)                                                               \
  do {                                                                            \
    const cudaError_t status = (call);                                            \
    if (status != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(status)); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

enum Shape { m8n8k4, m16n8k4, m16n8k8, m16n8k16 };
constexpr const char* shape_names[] = {"m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"};
__host__ __device__ constexpr int rows_of(Shape s) { return s == m8n8k4 ? 8 : 16; }
__host__ __device__ constexpr int depth_of(Shape s) {
  return s == m16n8k8 ? 8 : s == m16n8k16 ? 16 : 4;
}

// C += A B with this lane's fragments: a[depth * rows / 32], b[depth / 4], c[rows / 4].
template <Shape S>
__device__ __forceinline__ void mma(double* c, const double* a, const double* b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (S == m8n8k4) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(c[0]), "+d"(c[1])
                 : "d"(a[0]), "d"(b[0]));
    return;
  }
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (S == m16n8k4)
    asm volatile(
        "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(b[0]));
  if constexpr (S == m16n8k8)
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  if constexpr (S == m16n8k16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
          "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#else
  if constexpr (S != m8n8k4) __trap();  // main() runs only the shapes the device has
#endif
}

// One product of row-major A (rows x depth) and B (depth x 8) into row-major
// C (rows x 8), lane l = 4 g + q holding
//   m8n8k4:  a = A(g, q), b = B(q, g), c_h = C(g, 2q + h)
//   m16n8kK: a_i = A(g + 8 (i % 2), q + 4 (i / 2)), b_i = B(q + 4 i, g),
//            c_i = C(g + 8 (i / 2), 2q + i % 2)
template <Shape S>
__global__ void product(const double* A, const double* B, double* C) {
  constexpr int R = rows_of(S), K = depth_of(S);
  const int g = threadIdx.x / 4, q = threadIdx.x % 4;
  double a[8] = {}, b[4] = {}, c[4] = {};
  if constexpr (S == m8n8k4) {
    a[0] = A[g * K + q];
    b[0] = B[q * 8 + g];
  } else {
    for (int i = 0; i < K / 2; ++i) a[i] = A[(g + 8 * (i % 2)) * K + q + 4 * (i / 2)];
    for (int i = 0; i < K / 4; ++i) b[i] = B[(q + 4 * i) * 8 + g];
  }
  mma<S>(c, a, b);
  for (int i = 0; i < R / 4; ++i) C[(g + 8 * (i / 2)) * 8 + 2 * q + i % 2] = c[i];
}

// `chains` independent accumulators per warp, `iterations` products each.
template <Shape S, int CHAINS>
__global__ void throughput(double* sink, int iterations, double seed) {
  double a[8], b[4], c[CHAINS][4] = {};
  for (int i = 0; i < 8; ++i) a[i] = seed * (threadIdx.x + i);
  for (int i = 0; i < 4; ++i) b[i] = seed * (i + 1);
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int h = 0; h < CHAINS; ++h) mma<S>(c[h], a, b);
  double sum = 0;
  for (int h = 0; h < CHAINS; ++h)
    for (int i = 0; i < 4; ++i) sum += c[h][i];
  if (sum == seed) *sink = sum;  // keeps the products; practically never stores
}

template <int CHAINS>
__global__ void fma_throughput(double* sink, int iterations, double seed) {
  double c[CHAINS];
  for (int h = 0; h < CHAINS; ++h) c[h] = seed * h;
  const double a = seed * threadIdx.x, b = 0.999;
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int h = 0; h < CHAINS; ++h) c[h] = fma(c[h], b, a);
  double sum = 0;
  for (int h = 0; h < CHAINS; ++h) sum += c[h];
  if (sum == seed) *sink = sum;
}

template <Shape S>
bool layout_matches() {
  constexpr int R = rows_of(S), K = depth_of(S);
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> A(R * K), B(K * 8), C(R * 8), expected(R * 8, 0.0);
  for (auto& v : A) v = uniform(rng);
  for (auto& v : B) v = uniform(rng);
  for (int m = 0; m < R; ++m)
    for (int n = 0; n < 8; ++n)
      for (int k = 0; k < K; ++k) expected[m * 8 + n] += A[m * K + k] * B[k * 8 + n];
  double *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, A.size() * sizeof(double)));
  CHECK(cudaMalloc(&dB, B.size() * sizeof(double)));
  CHECK(cudaMalloc(&dC, C.size() * sizeof(double)));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(double), cudaMemcpyHostToDevice));
  product<S><<<1, 32>>>(dA, dB, dC);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(double), cudaMemcpyDeviceToHost));
  double error = 0;
  for (int i = 0; i < R * 8; ++i) error = std::fmax(error, std::fabs(C[i] - expected[i]));
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
  std::printf("layout %-9s max |C - A B| = %.1e: %s\n", shape_names[S], error,
              error < 1e-14 ? "as assumed" : "DIFFERS");
  return error < 1e-14;
}

// Milliseconds of one launch after a warm-up launch.
template <class Launch>
float time_ms(Launch launch) {
  launch(16);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  launch(0);
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaGetLastError());
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return ms;
}

template <Shape S>
void measure(double* sink, int sms) {
  constexpr int chains = 4, iterations = 4096, threads = 128;
  const double flops_per_product = 2.0 * rows_of(S) * 8 * depth_of(S);
  for (int warps_per_sm : {4, 16}) {
    const int blocks = sms * warps_per_sm / (threads / 32);
    const float ms = time_ms([&](int warm) {
      throughput<S, chains><<<blocks, threads>>>(sink, warm ? warm : iterations, 1e-3);
    });
    const double products = double(blocks) * (threads / 32) * iterations * chains;
    std::printf("%-9s %2d warps/SM, %d chains: %7.2f TFLOP/s  %6.2f G products/s\n", shape_names[S],
                warps_per_sm, chains, products * flops_per_product / ms / 1e9, products / ms / 1e6);
  }
  const float ms =
      time_ms([&](int warm) { throughput<S, 1><<<1, 32>>>(sink, warm ? warm : iterations, 1e-3); });
  std::printf("%-9s one dependent chain: %.1f ns per product\n", shape_names[S],
              ms * 1e6 / iterations);
}

}  // namespace

int main() {
  int device = 0, major = 0, sms = 0;
  cudaDeviceProp properties{};
  CHECK(cudaGetDevice(&device));
  CHECK(cudaGetDeviceProperties(&properties, device));
  major = properties.major;
  sms = properties.multiProcessorCount;
  std::printf("%s, compute capability %d.%d, %d SMs\n", properties.name, properties.major,
              properties.minor, sms);
  if (major < 8) {
    std::printf("fp64 mma.sync needs compute capability 8.0 or newer\n");
    return 1;
  }
  double* sink;
  CHECK(cudaMalloc(&sink, sizeof(double)));
  bool layouts = layout_matches<m8n8k4>();
  measure<m8n8k4>(sink, sms);
  if (major >= 9) {
    layouts = layout_matches<m16n8k4>() && layouts;
    layouts = layout_matches<m16n8k8>() && layouts;
    layouts = layout_matches<m16n8k16>() && layouts;
    measure<m16n8k4>(sink, sms);
    measure<m16n8k8>(sink, sms);
    measure<m16n8k16>(sink, sms);
  } else {
    std::printf("m16n8k4, m16n8k8, m16n8k16 (fp64) need compute capability 9.0\n");
  }
  constexpr int chains = 8, iterations = 8192, threads = 256;
  const int blocks = sms * 8;
  const float ms = time_ms([&](int warm) {
    fma_throughput<chains><<<blocks, threads>>>(sink, warm ? warm : iterations, 1e-3);
  });
  std::printf("FP64 FMA  64 warps/SM, %d chains: %7.2f TFLOP/s\n", chains,
              2.0 * blocks * threads * iterations * chains / ms / 1e9);
  CHECK(cudaFree(sink));
  return layouts ? 0 : 1;
}
