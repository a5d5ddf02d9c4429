#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ppkit.h"

TEST(CApi, InfoJsonReportsSizeThenFillsBuffer) {
  ASSERT_EQ(ppkit_init(), 0);  // Kokkos already initialised by the test main: not re-owned
  size_t required = 0;
  char tiny[4];
  EXPECT_NE(ppkit_info_json(tiny, sizeof tiny, &required), 0);
  EXPECT_NE(std::string(ppkit_last_error()).find("too small"), std::string::npos);
  ASSERT_GT(required, sizeof tiny);
  std::vector<char> buffer(required);
  ASSERT_EQ(ppkit_info_json(buffer.data(), buffer.size(), &required), 0) << ppkit_last_error();
  const auto info = nlohmann::json::parse(buffer.data());
  EXPECT_EQ(info["version"], ppkit_version());
  EXPECT_FALSE(info["kokkos"]["execution_spaces"].empty());
  EXPECT_EQ(ppkit_finalize(), 0);
}
