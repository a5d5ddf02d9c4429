// The harness's own test (CTest BenchHarness.*): a toy operation, registered
// only here, whose variants add an offset to the problem's values; the
// verification compares with the serial sum. "toy/right" must be timed and
// labelled verified, "toy/wrong" (one value off) and "toy/nan" must fail with
// "verification failed: ..." and publish no figure.
#include <cmath>
#include <memory>
#include <vector>

#include "harness/bench_harness.hpp"

namespace {

struct ToyOp {
  static constexpr const char* name = "test.toy";
  using Problem = std::vector<double>;
  using Result = std::vector<double>;
};

class ToyRun : public ppkit::PreparedRun<std::vector<double>> {
 public:
  ToyRun(const std::vector<double>& in, double error) : in_(in), error_(error) {}
  void run() override {
    out_.assign(in_.size(), 0.0);
    for (std::size_t i = 0; i < in_.size(); ++i) out_[i] = 2.0 * in_[i];
    out_[in_.size() / 2] += error_;  // the deliberate mistake of the broken variants
  }
  std::vector<double> result() override { return out_; }

 private:
  std::vector<double> in_, out_;
  double error_;
};

void add_toy(const std::string& strategy, double error) {
  ppkit::Variant<ToyOp> v;
  v.name = "toy/" + strategy;
  v.backend = "toy";
  v.strategy = strategy;
  v.prepare = [error](const std::vector<double>& p) { return std::make_unique<ToyRun>(p, error); };
  ppkit::Registry<ToyOp>::add(v);
}

}  // namespace

void ppkit::bench::register_benchmarks() {
  add_toy("right", 0.0);
  add_toy("wrong", 1e-3);
  add_toy("nan", std::nan(""));
  register_variant_benchmarks<ToyOp>(
      "toy_double",
      [] {
        std::vector<double> p(4096);
        for (std::size_t i = 0; i < p.size(); ++i) p[i] = 1.0 + std::sin(double(i));
        return p;
      },
      [](const std::vector<double>& p) {
        return BenchModel{double(p.size()), "values/s", 16.0 * double(p.size()), double(p.size())};
      },
      [](const std::vector<double>& p) {
        auto reference = std::make_shared<std::vector<double>>();
        for (double x : p) reference->push_back(x + x);
        CaseVerification<ToyOp> v;
        v.tolerance = 1e-12;
        v.check = [reference](const Variant<ToyOp>&, const std::vector<double>& r,
                              CompareRow& row) {
          row.extra["verified_against"] = "serial doubling";
          double d = 0, n = 0;
          for (std::size_t i = 0; i < r.size(); ++i) {
            d += (r[i] - (*reference)[i]) * (r[i] - (*reference)[i]);
            n += (*reference)[i] * (*reference)[i];
          }
          return std::sqrt(d / n);
        };
        return v;
      });
}
