#include "core/outcome.h"

#include <gtest/gtest.h>

#include "core/device_info.h"

namespace gauntlet::core {
namespace {

TEST(Outcome, RowsRoundTripThroughJson) {
  Row row = make_row("conform.f16.add", "opencl:0", RowStatus::fail, "index 3: expected 1, got 2");
  row.metrics["seed"] = 1234;
  row.duration_s = 0.25;
  Row back = Json(row).get<Row>();
  EXPECT_EQ(back.id, row.id);
  EXPECT_EQ(back.device, row.device);
  EXPECT_EQ(back.status, RowStatus::fail);
  EXPECT_EQ(back.reason, row.reason);
  EXPECT_EQ(back.metrics["seed"], 1234);
  EXPECT_DOUBLE_EQ(back.duration_s, 0.25);
}

TEST(Outcome, UnknownStatusIsRejected) {
  Json j = {{"id", "x"}, {"status", "okay"}};
  EXPECT_THROW(j.get<Row>(), Json::exception);
}

TEST(Outcome, AllPassedTreatsUnsupportedAsNoFailure) {
  EXPECT_TRUE(
      all_passed({make_row("a", "", RowStatus::pass), make_row("b", "", RowStatus::unsupported),
                  make_row("c", "", RowStatus::skipped)}));
  EXPECT_FALSE(
      all_passed({make_row("a", "", RowStatus::pass), make_row("b", "", RowStatus::crash)}));
}

TEST(DeviceId, ParsesAndRejects) {
  EXPECT_EQ(DeviceId::parse("opencl:0"), (DeviceId{Api::opencl, 0}));
  EXPECT_EQ(DeviceId::parse("vulkan:12"), (DeviceId{Api::vulkan, 12}));
  EXPECT_EQ(DeviceId::parse("host"), (DeviceId{Api::host, 0}));
  EXPECT_FALSE(DeviceId::parse("cuda:0"));
  EXPECT_FALSE(DeviceId::parse("opencl:"));
  EXPECT_FALSE(DeviceId::parse("opencl:-1"));
  EXPECT_FALSE(DeviceId::parse("opencl:1x"));
  EXPECT_EQ(DeviceId::parse("vulkan:3")->to_string(), "vulkan:3");
}

TEST(DeviceInfo, RoundTripsThroughJson) {
  DeviceInfo info;
  info.id = {Api::vulkan, 1};
  info.name = "llvmpipe";
  info.local_mem_size = 32768;
  info.pci_bus_id = "0000:c1:00.0";
  info.features.fp16_arithmetic = true;
  info.heaps = {{2ull << 30, true}};
  info.api_limits["maxStorageBufferRange"] = 1u << 27;
  info.products = Products::int8_simd;
  DeviceInfo back = Json(info).get<DeviceInfo>();
  EXPECT_EQ(back.products, Products::int8_simd);
  EXPECT_EQ(back.id, info.id);
  EXPECT_EQ(back.local_mem_size, 32768u);
  EXPECT_EQ(back.pci_bus_id, "0000:c1:00.0");
  EXPECT_FALSE(back.uuid.has_value());
  EXPECT_TRUE(back.features.fp16_arithmetic);
  ASSERT_EQ(back.heaps.size(), 1u);
  EXPECT_EQ(back.heaps[0].size, 2ull << 30);
  EXPECT_EQ(back.api_limits["maxStorageBufferRange"], 1u << 27);
  // A device written before the field: its API's own kernels.
  Json old = Json(info);
  old.erase("products");
  EXPECT_EQ(old.get<DeviceInfo>().products, Products::kernels);
}

}  // namespace
}  // namespace gauntlet::core
