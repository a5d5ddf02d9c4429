// The HDF5 checkpoint module (ppkit/core/checkpoint.hpp): round trip of every
// element type, atomic replacement, and the errors for a corrupted, truncated,
// missing or foreign file and for a full disk.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <unistd.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <random>

#include "harness/variant_test.hpp"
#include "ppkit/core/checkpoint.hpp"
#include "ppkit/core/error.hpp"

namespace {
using namespace ppkit;
namespace fs = std::filesystem;

fs::path temp_dir() {
  const fs::path dir =
      fs::temp_directory_path() / ("ppkit_ck_" + std::to_string(ppkit::testing::test_seed()) + "_" +
                                   std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

checkpoint::Content sample_content(std::size_t n) {
  std::mt19937 rng(ppkit::testing::test_seed());
  std::uniform_real_distribution<float> u(-1, 1);
  checkpoint::Content c("test");
  std::vector<float> f(n);
  for (auto& v : f) v = u(rng);
  c.put("field", f);
  c.put("doubles", std::vector<double>{1.5, -2.25, 1e300});
  c.put("ids", std::vector<std::int32_t>{3, 1, 2});
  c.put("big", std::vector<std::int64_t>{std::int64_t(1) << 40});
  c.put("kind", std::vector<std::uint8_t>{0, 1, 2, 255});
  c.put("material", std::vector<std::uint32_t>{7, 8});
  c.put("empty", std::vector<float>{});
  c.put_scalar("time", 0.125);
  c.put_scalar("step", std::int64_t(42));
  return c;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class Checkpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!checkpoint::available()) GTEST_SKIP() << "ppkit built without HDF5";
    dir_ = temp_dir();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(Checkpoint, RoundTripKeepsEveryTypeAndScalar) {
  const auto c = sample_content(1000);
  const std::string path = (dir_ / "a.h5").string();
  checkpoint::write(path, c);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  const auto r = checkpoint::read(path, "test");
  EXPECT_EQ(r.get<float>("field"), c.get<float>("field"));
  EXPECT_EQ(r.get<double>("doubles"), c.get<double>("doubles"));
  EXPECT_EQ(r.get<std::int32_t>("ids"), c.get<std::int32_t>("ids"));
  EXPECT_EQ(r.get<std::int64_t>("big"), c.get<std::int64_t>("big"));
  EXPECT_EQ(r.get<std::uint8_t>("kind"), c.get<std::uint8_t>("kind"));
  EXPECT_EQ(r.get<std::uint32_t>("material"), c.get<std::uint32_t>("material"));
  EXPECT_TRUE(r.get<float>("empty").empty());
  EXPECT_EQ(r.get_double("time"), 0.125);
  EXPECT_EQ(r.get_integer("step"), 42);
  EXPECT_EQ(r.checksum(), c.checksum());
  // A wrong type or a missing entry names the file.
  EXPECT_NE(error_of([&] { r.get<double>("field"); }).find(path), std::string::npos);
  EXPECT_NE(error_of([&] { r.get_double("nothing"); }).find("nothing"), std::string::npos);
  // Rewriting replaces the file atomically.
  auto c2 = c;
  c2.put_scalar("step", std::int64_t(43));
  checkpoint::write(path, c2);
  EXPECT_EQ(checkpoint::read(path, "test").get_integer("step"), 43);
}

TEST_F(Checkpoint, CorruptedDataFailsTheChecksumNamingTheFile) {
  checkpoint::Content c("test");
  std::vector<float> marker(4096, 1.2345f);
  c.put("marker", marker);
  const std::string path = (dir_ / "corrupt.h5").string();
  checkpoint::write(path, c);
  // Flip one byte inside the dataset's data (found by its bit pattern).
  std::vector<char> bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string pattern(reinterpret_cast<const char*>(marker.data()), 64);
  const auto at = std::string(bytes.begin(), bytes.end()).find(pattern);
  ASSERT_NE(at, std::string::npos);
  bytes[at + 1000] ^= 0x10;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
  }
  const std::string e = error_of([&] { checkpoint::read(path, "test"); });
  EXPECT_NE(e.find(path), std::string::npos) << e;
  EXPECT_NE(e.find("checksum"), std::string::npos) << e;
}

TEST_F(Checkpoint, TruncatedMissingAndForeignFilesAreErrors) {
  const auto c = sample_content(20000);
  const std::string path = (dir_ / "t.h5").string();
  checkpoint::write(path, c);
  for (double fraction : {0.9, 0.5, 0.01}) {
    checkpoint::write(path, c);
    fs::resize_file(path, std::uintmax_t(double(fs::file_size(path)) * fraction));
    const std::string e = error_of([&] { checkpoint::read(path, "test"); });
    EXPECT_NE(e.find(path), std::string::npos) << "fraction " << fraction << ": " << e;
  }
  checkpoint::write(path, c);
  const std::string kind = error_of([&] { checkpoint::read(path, "fdtd"); });
  EXPECT_NE(kind.find("'test' checkpoint, not 'fdtd'"), std::string::npos) << kind;
  const std::string text = (dir_ / "text.h5").string();
  std::ofstream(text) << "not a checkpoint\n";
  EXPECT_NE(error_of([&] { checkpoint::read(text, "test"); }).find("not an HDF5 file"),
            std::string::npos);
  const std::string missing = (dir_ / "missing.h5").string();
  EXPECT_NE(error_of([&] { checkpoint::read(missing, "test"); }).find(missing), std::string::npos);
}

// A full disk (simulated by a file size limit: writes past it fail with EFBIG)
// is an error naming the file, and the previous checkpoint survives intact.
TEST_F(Checkpoint, FullDiskKeepsThePreviousCheckpoint) {
  const std::string path = (dir_ / "full.h5").string();
  const auto small = sample_content(10);
  checkpoint::write(path, small);
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto* previous = signal(SIGXFSZ, SIG_IGN);
  rlimit tiny = old;
  tiny.rlim_cur = 64 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &tiny), 0);
  const std::string e = error_of([&] { checkpoint::write(path, sample_content(200000)); });
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, previous);
  EXPECT_NE(e.find("writing checkpoint '" + path + "' failed"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  EXPECT_EQ(checkpoint::read(path, "test").checksum(), small.checksum());
  // A directory that does not exist.
  const std::string nowhere = (dir_ / "no" / "such" / "dir.h5").string();
  EXPECT_NE(error_of([&] { checkpoint::write(nowhere, small); }).find(nowhere), std::string::npos);
}

}  // namespace
