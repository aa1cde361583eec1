// The bandwidth kernels move exactly what they claim in both launch shapes (grid-stride, and a
// contiguous run per invocation), on PoCL, llvmpipe and the host, so that a figure measured with
// them is the figure of a correct copy, read or write.
#include <gtest/gtest.h>

#include <vector>

#include "backends/catalog.h"
#include "core/options.h"
#include "stress/bandwidth.h"
#include "stress/copy_chain.h"
#include "stress/kernels.h"

namespace gauntlet::stress {
namespace {

constexpr uint32_t kVectors = 1000;

struct Shape {
  uint32_t groups;
  uint32_t per_invocation;
};

// 7 groups striding over the buffer; 3 groups of contiguous runs of 6 (the last runs are short or
// empty: 3 * 64 * 6 = 1152 > 1000).
const Shape kShapes[] = {{7, 0}, {3, 6}};

class BandwidthKernels : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto env = core::Options::from_environment();
    ASSERT_TRUE(env.is_ok()) << env.error().describe();
    auto d = backends::open(*core::DeviceId::parse(GetParam()), *env);
    ASSERT_TRUE(d.is_ok()) << GetParam() << " (is the driver installed?): " << d.error().describe();
    device_ = std::move(*d);
  }

  std::unique_ptr<backends::Buffer> buffer_of(const std::vector<uint32_t>& words) {
    auto b = device_->allocate(words.size() * 4);
    EXPECT_TRUE(b.is_ok()) << b.error().describe();
    auto st = device_->upload(**b, std::as_bytes(std::span(words)));
    EXPECT_TRUE(st.is_ok()) << st.error().describe();
    return std::move(*b);
  }

  std::vector<uint32_t> words_of(const backends::Buffer& b) {
    std::vector<uint32_t> out(b.size() / 4);
    auto st = device_->download(b, std::as_writable_bytes(std::span(out)));
    EXPECT_TRUE(st.is_ok()) << st.error().describe();
    return out;
  }

  void run(const backends::KernelSource& source, std::vector<backends::Buffer*> buffers,
           Shape shape) {
    auto kernel = device_->build(source);
    ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
    const BwParams params{kVectors, shape.per_invocation};
    backends::DispatchArgs args;
    args.buffers = std::move(buffers);
    args.params = std::as_bytes(std::span(&params, 1));
    args.groups = {shape.groups, 1, 1};
    auto st = device_->dispatch(**kernel, args);
    ASSERT_TRUE(st.is_ok()) << st.error().describe();
    ASSERT_TRUE(device_->finish().is_ok());
  }

  std::unique_ptr<backends::Device> device_;
};

std::vector<uint32_t> numbered_words() {
  std::vector<uint32_t> words(4 * kVectors);
  for (uint32_t i = 0; i < words.size(); ++i) words[i] = i * 2654435761u;
  return words;
}

TEST_P(BandwidthKernels, CopyMovesEveryVectorInEitherShape) {
  const auto source = numbered_words();
  for (Shape shape : kShapes) {
    auto a = buffer_of(source);
    auto b = buffer_of(std::vector<uint32_t>(source.size() + 4, 0xdeadbeefu));
    run(copy_kernel(), {a.get(), b.get()}, shape);
    const auto copied = words_of(*b);
    EXPECT_TRUE(std::equal(source.begin(), source.end(), copied.begin()))
        << "groups " << shape.groups << ", run " << shape.per_invocation;
    EXPECT_EQ(copied.back(), 0xdeadbeefu) << "the copy wrote past its count";
  }
}

TEST_P(BandwidthKernels, ReadFoldsEachInvocationsVectors) {
  const auto source = numbered_words();
  for (Shape shape : kShapes) {
    const uint32_t threads = shape.groups * kWorkgroup;
    auto a = buffer_of(source);
    auto sink = buffer_of(std::vector<uint32_t>(threads, 0));
    run(read_kernel(), {a.get(), sink.get()}, shape);
    const auto folded = words_of(*sink);
    int wrong = 0;
    for (uint32_t t = 0; t < threads; ++t) {
      const uint32_t per = shape.per_invocation;
      const uint32_t begin = per == 0 ? t : t * per;
      const uint32_t end = per == 0 ? kVectors : std::min(begin + per, kVectors);
      uint32_t expected = 0;
      for (uint32_t i = begin; i < end; i += per == 0 ? threads : 1) {
        for (uint32_t lane = 0; lane < 4; ++lane) expected ^= source[4 * i + lane];
      }
      wrong += folded[t] != expected;
    }
    EXPECT_EQ(wrong, 0) << "groups " << shape.groups << ", run " << shape.per_invocation;
  }
}

TEST_P(BandwidthKernels, WriteFillsEveryVectorInEitherShape) {
  for (Shape shape : kShapes) {
    auto b = buffer_of(std::vector<uint32_t>(4 * kVectors + 4, 0xdeadbeefu));
    run(write_kernel(), {b.get()}, shape);
    const auto written = words_of(*b);
    int wrong = 0;
    for (uint32_t i = 0; i < kVectors; ++i) {
      for (uint32_t lane = 0; lane < 4; ++lane) wrong += written[4 * i + lane] != (i ^ 0x5a5a5a5au);
    }
    EXPECT_EQ(wrong, 0) << "groups " << shape.groups << ", run " << shape.per_invocation;
    EXPECT_EQ(written.back(), 0xdeadbeefu) << "the write went past its count";
  }
}

TEST_P(BandwidthKernels, MeasurementCoversTheSmallerBufferInEveryFigure) {
  auto a = device_->allocate(3u << 20);
  auto b = device_->allocate(2u << 20);
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  auto bw = measure_device_bandwidth(*device_, **a, **b, 1);
  ASSERT_TRUE(bw.is_ok()) << bw.error().describe();
  EXPECT_EQ(bw->bytes, 2u << 20);
  EXPECT_GT(bw->copy_gbps, 0.0);
  EXPECT_GT(bw->read_gbps, 0.0);
  EXPECT_GT(bw->write_gbps, 0.0);
}

// The speed floor's reference: every piece of the chain copied whole, each from its own source
// (each launch shape's copy is checked above).
TEST_P(BandwidthKernels, CopyChainCopiesEveryPieceWhole) {
  auto chain = CopyChain::allocate(*device_, 3 * 2 * 16 * kVectors + 10, 3);
  ASSERT_TRUE(chain.is_ok()) << chain.error().describe();
  EXPECT_EQ(chain->dispatches(), 3u);
  EXPECT_EQ(chain->bytes(), 3u * 2 * 16 * kVectors);  // whole vectors, read and written
  auto seconds = chain->seconds();
  ASSERT_TRUE(seconds.is_ok()) << seconds.error().describe();
  EXPECT_GT(*seconds, 0.0);
  for (uint32_t d = 0; d < 3; ++d) {
    const auto source = words_of(chain->source(d));
    EXPECT_EQ(words_of(chain->destination(d)), source) << "piece " << d;
    EXPECT_NE(source, words_of(chain->source((d + 1) % 3))) << "the pieces hold the same words";
  }
}

TEST_P(BandwidthKernels, CopyChainOfNoDispatchesIsRefused) {
  auto chain = CopyChain::allocate(*device_, 1u << 20, 0);
  ASSERT_FALSE(chain.is_ok());
  EXPECT_EQ(chain.error().kind, core::ErrorKind::invalid_argument);
  EXPECT_NE(chain.error().describe().find("0 dispatches"), std::string::npos)
      << chain.error().describe();
}

INSTANTIATE_TEST_SUITE_P(Devices, BandwidthKernels,
                         ::testing::Values("opencl:0", "vulkan:0", "host"), [](const auto& info) {
                           return info.param == "host" ? std::string("host")
                                                       : info.param.substr(0, info.param.find(':'));
                         });

}  // namespace
}  // namespace gauntlet::stress
