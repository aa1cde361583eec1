// Each decode kernel against a host computation, with a per-op NMSE bound and guard regions
// around the outputs (elements outside the output range must keep their sentinel).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/half.h"
#include "device_fixture.h"
#include "engine/device/ops.h"
#include "engine/device/profile_check.h"

namespace gauntlet::engine::test {
namespace {

using device::Ops;
using model::TensorType;
using planner::KernelVariant;

constexpr float kSentinel = 777.0f;
constexpr uint32_t kGuard = 64;

// An activation buffer: guard, input, guard, output, guard (all offsets in floats).
struct ActBuffer {
  uint32_t in_off, out_off, total;
  std::vector<float> host;
};

ActBuffer act_layout(const std::vector<float>& input, uint32_t n_out) {
  ActBuffer a;
  a.in_off = kGuard;
  a.out_off = a.in_off + static_cast<uint32_t>(input.size()) + kGuard;
  a.total = a.out_off + n_out + kGuard;
  a.host.assign(a.total, kSentinel);
  std::copy(input.begin(), input.end(), a.host.begin() + a.in_off);
  return a;
}

std::unique_ptr<backends::Buffer> upload(backends::Device& d, std::span<const std::byte> bytes) {
  auto b = d.allocate(bytes.size());
  EXPECT_TRUE(b.is_ok()) << b.error().describe();
  auto st = d.upload(**b, bytes);
  EXPECT_TRUE(st.is_ok()) << st.error().describe();
  return std::move(*b);
}

std::unique_ptr<backends::Buffer> upload_floats(backends::Device& d, const std::vector<float>& v) {
  return upload(d, std::as_bytes(std::span(v)));
}

std::vector<float> download_floats(backends::Device& d, const backends::Buffer& b) {
  std::vector<float> out(b.size() / sizeof(float));
  auto st = d.download(b, std::as_writable_bytes(std::span(out)));
  EXPECT_TRUE(st.is_ok()) << st.error().describe();
  return out;
}

// Everything outside [out_off, out_off + n_out) must be what it was.
void expect_untouched(const ActBuffer& before, const std::vector<float>& after, uint32_t n_out) {
  ASSERT_EQ(after.size(), before.host.size());
  for (uint32_t i = 0; i < after.size(); ++i) {
    if (i >= before.out_off && i < before.out_off + n_out) continue;
    ASSERT_EQ(after[i], before.host[i]) << "element " << i << " outside the output changed";
  }
}

std::span<const float> out_span(const std::vector<float>& v, const ActBuffer& a, uint32_t n) {
  return std::span<const float>(v).subspan(a.out_off, n);
}

struct MatvecCase {
  TensorType type;
  uint32_t tile;  // kWholeVector or a chunk
  planner::ActivationType act;
  double bound;
};

class EngineKernels : public DeviceTest {
 protected:
  // With `accumulate`, the output starts as a residual that the product is added to. With
  // `whole_vectors` both buffers are whole 16-byte vectors, so that a CPU Vulkan driver reads the
  // activations and staged blocks as vectors (device::vector_reads); without, neither is, and it
  // reads them word by word.
  void run_matvec(const MatvecCase& c, uint32_t n_in, uint32_t n_out, uint32_t rows,
                  bool accumulate = false, bool whole_vectors = false) {
    const auto weights = random_floats(uint64_t{n_in} * n_out, 11, 1.0f);
    const auto x = random_floats(n_in, 12, 1.0f);
    const uint64_t rb = model::row_bytes(c.type, n_in);
    uint64_t words = (rb * n_out + 3) / 4;  // whole words, as Ops::matvec asks
    if (whole_vectors != (words % 4 == 0)) words = whole_vectors ? (words + 3) / 4 * 4 : words + 1;
    std::vector<std::byte> wq(words * 4);
    // An even importance row: iq2_xxs, iq2_xs and iq1_s need one.
    const std::vector<float> importance(n_in, 1.0f);
    for (uint32_t r = 0; r < n_out; ++r) {
      model::quantize_row(c.type, weights.data() + uint64_t{r} * n_in, wq.data() + r * rb, n_in,
                          importance.data());
    }
    std::vector<float> expected(n_out);
    for (uint32_t r = 0; r < n_out; ++r)
      expected[r] = model::dot_row(c.type, wq.data() + r * rb, x.data(), n_in);

    auto a = act_layout(x, n_out);
    if (whole_vectors != (a.total % 4 == 0)) {
      a.total = whole_vectors ? (a.total + 3) / 4 * 4 : a.total + 1;
      a.host.resize(a.total, kSentinel);
    }
    if (accumulate) {
      const auto residual = random_floats(n_out, 13, 8.0f);
      std::copy(residual.begin(), residual.end(), a.host.begin() + a.out_off);
      for (uint32_t r = 0; r < n_out; ++r) expected[r] = residual[r] + expected[r];
    }
    auto wbuf = upload(device(), wq);
    auto abuf = upload_floats(device(), a.host);
    const auto reads = device::vector_reads(*wbuf, *abuf, {a.in_off});
    ASSERT_EQ(reads.activations, whole_vectors);
    ASSERT_EQ(reads.weight_blocks, whole_vectors);
    Ops ops(device());
    KernelVariant v{planner::KernelOp::matvec, 64, c.tile, c.act};
    auto st =
        ops.matvec(*wbuf, c.type, v, n_in, n_out, *abuf, a.in_off, a.out_off, rows, accumulate);
    ASSERT_TRUE(st.is_ok()) << st.error().describe();
    const auto after = download_floats(device(), *abuf);
    expect_untouched(a, after, n_out);
    const double e = device::nmse(out_span(after, a, n_out), expected);
    EXPECT_LE(e, c.bound) << model::to_string(c.type) << " " << v.name() << " n_in " << n_in
                          << " out[0] " << after[a.out_off] << " expected " << expected[0];
  }
};

TEST_F(EngineKernels, MatvecEveryFormatWholeAndChunked) {
  for (TensorType t :
       {TensorType::f32, TensorType::f16, TensorType::bf16, TensorType::q8_0, TensorType::q4_0}) {
    // Rows that are not a multiple of the rows per workgroup; chunks that leave a remainder.
    run_matvec({t, planner::kWholeVector, planner::ActivationType::f32, 1e-10}, 320, 37, 4);
    run_matvec({t, 64, planner::ActivationType::f32, 1e-10}, 320, 37, 4);
    run_matvec({t, 128, planner::ActivationType::f32, 1e-10}, 320, 5, 1);
    // Whole groups of 8 quantized blocks per row and per chunk (the vector-load path), the
    // activations read as vectors.
    run_matvec({t, planner::kWholeVector, planner::ActivationType::f32, 1e-10}, 512, 37, 4, false,
               true);
    run_matvec({t, 256, planner::ActivationType::f32, 1e-10}, 768, 37, 4);
    // Float rows of 330 elements: every other row starts off a 16-byte boundary (the word path),
    // and chunks end in a tail shorter than a vector.
    if (t == TensorType::f32 || t == TensorType::f16 || t == TensorType::bf16) {
      run_matvec({t, planner::kWholeVector, planner::ActivationType::f32, 1e-10}, 330, 37, 4);
      run_matvec({t, 64, planner::ActivationType::f32, 1e-10}, 330, 37, 4);
    }
  }
}

// On a CPU Vulkan driver every type reads its weights as texels (config.h's reads_as_texels,
// with the limit the device reported), so the tests here cover those shaders there and the
// storage-buffer ones elsewhere.
TEST_F(EngineKernels, MatvecReadsItsWeightsAsTexelsOnCpuVulkanOnly) {
  const auto& info = device().info();
  const bool cpu_vulkan = info.id.api == core::Api::vulkan && info.device_type == "cpu";
  EXPECT_EQ(device::reads_as_texels(info, 1 << 20), cpu_vulkan);
}

// Every type, rows of whole 256-element blocks (the k-quants' super-blocks): the whole vector with
// four rows per work-item from buffers of whole vectors, and three chunks of an f16 tile, one row
// per work-item, added onto a residual, from buffers that are not (blocks staged by words). Each
// type's block decoder is the part under test; the tile paths themselves are covered across the
// five tuned formats above (every combination for every type made PoCL compile 130 kernels, 110 s
// of a CI run with a cold kernel cache).
TEST_F(EngineKernels, MatvecEveryTensorType) {
  for (const auto& type : model::all_tensor_types()) {
    const TensorType t = type.type;
    SCOPED_TRACE(type.name);
    run_matvec({t, planner::kWholeVector, planner::ActivationType::f32, 1e-10}, 512, 37, 4, false,
               true);
    run_matvec({t, 256, planner::ActivationType::f16, 1e-5}, 768, 37, 1, true);
  }
}

// Eight rows per work-item (config.h's matvec_rows on a CPU Vulkan driver): the tuned formats'
// vector paths, a staged block type and a code-word one, 37 rows so that the last work-item's
// rows pass the matrix's end.
TEST_F(EngineKernels, MatvecEightRowsPerWorkItem) {
  for (TensorType t :
       {TensorType::f16, TensorType::q8_0, TensorType::q4_0, TensorType::q4_K, TensorType::q6_K}) {
    SCOPED_TRACE(model::to_string(t));
    run_matvec({t, planner::kWholeVector, planner::ActivationType::f32, 1e-10}, 512, 37, 8);
  }
}

TEST_F(EngineKernels, MatvecAccumulatesOntoTheResidual) {
  for (TensorType t : {TensorType::f32, TensorType::bf16, TensorType::q8_0, TensorType::q4_0}) {
    run_matvec({t, planner::kWholeVector, planner::ActivationType::f32, 1e-10}, 512, 37, 4, true);
    run_matvec({t, 64, planner::ActivationType::f32, 1e-10}, 320, 37, 1, true);
  }
}

TEST_F(EngineKernels, MatvecF16ActivationTileHasItsBound) {
  // The tile is rounded to f16 (relative error 2^-11 per element): a looser bound, but far
  // tighter than a wrong result (NMSE ~1).
  for (TensorType t : {TensorType::f32, TensorType::q8_0, TensorType::q4_0}) {
    run_matvec({t, planner::kWholeVector, planner::ActivationType::f16, 1e-5}, 2048, 16, 4);
    run_matvec({t, 256, planner::ActivationType::f16, 1e-5}, 2048, 16, 4);
  }
}

TEST_F(EngineKernels, EmbedDequantizesARowExactly) {
  const uint32_t n = 512, rows = 5, row = 3;
  const auto weights = random_floats(n * rows, 21);
  // An even importance row: the lattice types iq2_xxs, iq2_xs and iq1_s need one.
  const std::vector<float> importance(n, 1.0f);
  for (const auto& type : model::all_tensor_types()) {
    const TensorType t = type.type;
    const uint64_t rb = model::row_bytes(t, n);
    std::vector<std::byte> wq((rb * rows + 3) / 4 * 4);
    for (uint32_t r = 0; r < rows; ++r)
      model::quantize_row(t, weights.data() + r * n, wq.data() + r * rb, n, importance.data());
    std::vector<float> expected(n);
    model::dequantize_row(t, wq.data() + row * rb, expected.data(), n);
    auto a = act_layout({}, n);
    auto wbuf = upload(device(), wq);
    auto abuf = upload_floats(device(), a.host);
    Ops ops(device());
    auto st = ops.embed(*wbuf, t, n, row, *abuf, a.out_off);
    ASSERT_TRUE(st.is_ok()) << st.error().describe();
    const auto after = download_floats(device(), *abuf);
    expect_untouched(a, after, n);
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(after[a.out_off + i], expected[i]) << model::to_string(t) << " element " << i;
    }
  }
}

TEST_F(EngineKernels, RmsnormMatchesDoubleReference) {
  const uint32_t n = 300;
  const auto x = random_floats(n, 31, 3.0f);
  const auto w = random_floats(n, 32, 1.0f);
  double sum = 0;
  for (float v : x) sum += double{v} * v;
  const double scale = 1.0 / std::sqrt(sum / n + 1e-5);
  std::vector<float> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = static_cast<float>(x[i] * scale * w[i]);
  auto a = act_layout(x, n);
  auto abuf = upload_floats(device(), a.host);
  auto wbuf = upload_floats(device(), w);
  Ops ops(device());
  auto st = ops.rmsnorm(*abuf, *wbuf, 64, {n, a.in_off, a.out_off, 1e-5f});
  ASSERT_TRUE(st.is_ok()) << st.error().describe();
  const auto after = download_floats(device(), *abuf);
  expect_untouched(a, after, n);
  EXPECT_LE(device::nmse(out_span(after, a, n), expected), 1e-12);
}

// qwen3's Q norm: 4 heads of 96, each normalized on its own, one weight for all, in place.
TEST_F(EngineKernels, RmsnormPerHeadRows) {
  const uint32_t heads = 4, hd = 96;
  const auto x = random_floats(heads * hd, 33, 3.0f);
  const auto w = random_floats(hd, 34, 1.0f);
  std::vector<float> expected(x.size());
  for (uint32_t h = 0; h < heads; ++h) {
    double sum = 0;
    for (uint32_t i = 0; i < hd; ++i) sum += double{x[h * hd + i]} * x[h * hd + i];
    const double scale = 1.0 / std::sqrt(sum / hd + 1e-6);
    for (uint32_t i = 0; i < hd; ++i) {
      expected[h * hd + i] = static_cast<float>(x[h * hd + i] * scale * w[i]);
    }
  }
  auto a = act_layout(x, 0);
  auto abuf = upload_floats(device(), a.host);
  auto wbuf = upload_floats(device(), w);
  Ops ops(device());
  auto st = ops.rmsnorm(*abuf, *wbuf, 32, {hd, a.in_off, a.in_off, 1e-6f}, heads);
  ASSERT_TRUE(st.is_ok()) << st.error().describe();
  const auto after = download_floats(device(), *abuf);
  EXPECT_LE(device::nmse(std::span(after).subspan(a.in_off, x.size()), expected), 1e-12);
}

// qwen2's Q/K/V biases: act[off + i] += bias[i], the values around untouched.
TEST_F(EngineKernels, AddBiasAddsIntoTheActivations) {
  const uint32_t n = 130;
  const auto x = random_floats(n, 35, 2.0f);
  const auto bias = random_floats(n, 36, 1.0f);
  std::vector<float> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = x[i] + bias[i];
  auto a = act_layout({}, n);
  std::copy(x.begin(), x.end(), a.host.begin() + a.out_off);
  auto abuf = upload_floats(device(), a.host);
  auto bbuf = upload_floats(device(), bias);
  Ops ops(device());
  auto st = ops.add_bias(*abuf, *bbuf, {n, a.out_off});
  ASSERT_TRUE(st.is_ok()) << st.error().describe();
  const auto after = download_floats(device(), *abuf);
  expect_untouched(a, after, n);
  EXPECT_EQ(std::vector<float>(after.begin() + a.out_off, after.begin() + a.out_off + n), expected);
}

TEST_F(EngineKernels, ElementwiseAddAndSwiglu) {
  const uint32_t n = 200;
  const auto x = random_floats(2 * n, 41, 4.0f);
  for (auto op : {device::Elementwise::add, device::Elementwise::swiglu}) {
    // Output a = input[0..n), operand b = input[n..2n).
    auto a = act_layout({}, 2 * n);
    std::copy(x.begin(), x.end(), a.host.begin() + a.out_off);
    std::vector<float> expected(n);
    for (uint32_t i = 0; i < n; ++i) {
      const float u = x[i], v = x[n + i];
      expected[i] = op == device::Elementwise::add ? u + v : u / (1.0f + std::exp(-u)) * v;
    }
    auto abuf = upload_floats(device(), a.host);
    Ops ops(device());
    auto st = ops.elementwise(*abuf, op, {n, a.out_off, a.out_off + n});
    ASSERT_TRUE(st.is_ok()) << st.error().describe();
    const auto after = download_floats(device(), *abuf);
    expect_untouched(a, after, n);  // b (the second half) is outside the output: unchanged
    const double bound = op == device::Elementwise::add ? 0.0 : 1e-12;
    EXPECT_LE(device::nmse(out_span(after, a, n), expected), bound);
  }
}

// q (2 heads) and k, v (1 KV head) of head_dim 8, rope over 6 of the 8 dimensions.
TEST_F(EngineKernels, RopeRotatesAndStoresKvInBothPrecisions) {
  const uint32_t hd = 8, n_q = 16, n_kv = 8, rope_dims = 6, pos = 5, context = 4;
  const auto in = random_floats(n_q + 2 * n_kv, 51);
  std::vector<float> table(rope_dims);
  for (uint32_t i = 0; i < rope_dims / 2; ++i) {
    const double th = pos * std::pow(10000.0, -2.0 * i / rope_dims);
    table[2 * i] = static_cast<float>(std::cos(th));
    table[2 * i + 1] = static_cast<float>(std::sin(th));
  }
  // NORM (llama) turns elements (2i, 2i + 1) of a head; NEOX (qwen2, qwen3, phi3) turns
  // (i, i + rope_dims / 2): here (0, 3), (1, 4), (2, 5), with 6 and 7 left alone.
  auto rot = [&](std::vector<float> v, uint32_t heads, bool neox) {
    for (uint32_t h = 0; h < heads; ++h) {
      for (uint32_t i = 0; i < rope_dims / 2; ++i) {
        float* a = v.data() + h * hd + (neox ? i : 2 * i);
        float* b = v.data() + h * hd + (neox ? i + rope_dims / 2 : 2 * i + 1);
        const float x = *a, y = *b;
        *a = x * table[2 * i] - y * table[2 * i + 1];
        *b = x * table[2 * i + 1] + y * table[2 * i];
      }
    }
    return v;
  };
  const std::vector<float> v_exp(in.begin() + n_q + n_kv, in.end());
  for (auto [kv, neox] :
       {std::pair{planner::KvPrecision::f32, false}, std::pair{planner::KvPrecision::f16, false},
        std::pair{planner::KvPrecision::f32, true}, std::pair{planner::KvPrecision::f16, true}}) {
    SCOPED_TRACE(neox ? "neox" : "norm");
    const auto q_exp = rot({in.begin(), in.begin() + n_q}, 2, neox);
    const auto k_exp = rot({in.begin() + n_q, in.begin() + n_q + n_kv}, 1, neox);
    auto a = act_layout(in, 0);
    auto abuf = upload_floats(device(), a.host);
    const uint32_t eb = static_cast<uint32_t>(planner::kv_row_bytes(kv.k, 1));
    std::vector<std::byte> cache(uint64_t{context} * n_kv * eb, std::byte{0x5a});
    auto kbuf = upload(device(), cache);
    auto vbuf = upload(device(), cache);
    auto tbuf = upload_floats(device(), table);
    const uint32_t slot = 2;  // cache position written: the token's position, sequence 0
    auto pass = upload(device(), std::as_bytes(std::span<const uint32_t>({slot, 0u})));
    Ops ops(device());
    auto st = ops.rope_kv(*abuf, *kbuf, *vbuf, *tbuf, *pass, kv,
                          {a.in_off, a.in_off + n_q, a.in_off + n_q + n_kv, n_q / 2, n_kv / 2, hd,
                           rope_dims, 0, neox ? 1u : 0u, 0, context, 0});
    ASSERT_TRUE(st.is_ok()) << st.error().describe();
    const auto after = download_floats(device(), *abuf);
    EXPECT_LE(device::nmse(std::span(after).subspan(a.in_off, n_q), q_exp), 1e-12);
    for (auto [buf, expected] : {std::pair{kbuf.get(), &k_exp}, std::pair{vbuf.get(), &v_exp}}) {
      std::vector<std::byte> got(cache.size());
      ASSERT_TRUE(device().download(*buf, got).is_ok());
      for (uint32_t p = 0; p < context; ++p) {
        for (uint32_t i = 0; i < n_kv; ++i) {
          const size_t at = (uint64_t{p} * n_kv + i) * eb;
          if (p != slot) {  // guard: other positions keep their bytes
            ASSERT_EQ(got[at], std::byte{0x5a}) << "position " << p << " was written";
            continue;
          }
          float value;
          if (kv == planner::KvPrecision::f32) {
            std::memcpy(&value, &got[at], 4);
            EXPECT_NEAR(value, (*expected)[i], 1e-6f) << i;
          } else {
            uint16_t h;
            std::memcpy(&h, &got[at], 2);
            value = core::f16_to_f32(h);
            EXPECT_NEAR(value, (*expected)[i], std::abs((*expected)[i]) * 1e-3f + 1e-6f) << i;
          }
        }
      }
    }
  }
}

// 4 query heads over 2 KV heads, head_dim 16, 77 positions of a 100-position cache, with score
// tiles that take several passes, one pass, and the whole context; also a sliding window over a
// ring of slots, soft-capped scores, and per-head sinks in the denominator.
TEST_F(EngineKernels, AttentionOnlineSoftmaxMatchesDirectSoftmax) {
  const uint32_t n_head = 4, n_head_kv = 2, hd = 16, context = 100, n_pos = 77, layer = 1;
  const uint32_t n_kv = n_head_kv * hd;
  const auto q = random_floats(n_head * hd, 61, 2.0f);
  const uint64_t cache_elems = 2ull * context * n_kv;  // 2 layers
  const auto kf = random_floats(cache_elems, 62, 1.0f);
  const auto vf = random_floats(cache_elems, 63, 1.0f);
  const float scale = 1.0f / std::sqrt(float(hd));
  for (auto kv : {planner::KvPrecision::f32, planner::KvPrecision::f16}) {
    std::vector<std::byte> kb(cache_elems * static_cast<uint32_t>(planner::kv_row_bytes(kv.k, 1))),
        vb(kb.size());
    std::vector<float> kr(cache_elems), vr(cache_elems);  // what the cache holds, as floats
    for (uint64_t i = 0; i < cache_elems; ++i) {
      if (kv == planner::KvPrecision::f32) {
        kr[i] = kf[i];
        vr[i] = vf[i];
        std::memcpy(&kb[i * 4], &kf[i], 4);
        std::memcpy(&vb[i * 4], &vf[i], 4);
      } else {
        const uint16_t kh = core::f32_to_f16(kf[i]), vh = core::f32_to_f16(vf[i]);
        kr[i] = core::f16_to_f32(kh);
        vr[i] = core::f16_to_f32(vh);
        std::memcpy(&kb[i * 2], &kh, 2);
        std::memcpy(&vb[i * 2], &vh, 2);
      }
    }
    const uint64_t layer_off = uint64_t{layer} * context * n_kv;
    // Whole causal attention; a sliding window of 16 over a ring of 16 slots (position t in slot
    // t % 16); gemma2's soft-cap of the scores.
    // gpt-oss's sinks: a logit per head in the denominator only, one of them above every score
    // (most of that head's weight goes to the sink).
    const std::vector<float> sink_logits = {0.5f, -1.0f, 6.0f, 0.0f};
    struct Case {
      uint32_t first, ring;
      float softcap;
      bool sinks = false;
    };
    for (const Case c : {Case{0, context, 0.0f}, Case{n_pos - 16, 16, 0.0f}, Case{0, context, 2.0f},
                         Case{n_pos - 16, 16, 0.0f, true}}) {
      std::vector<float> expected(n_head * hd);
      auto row = [&](uint32_t t) { return layer_off + uint64_t{t % c.ring} * n_kv; };
      for (uint32_t h = 0; h < n_head; ++h) {
        const uint32_t kvh = h / (n_head / n_head_kv);
        std::vector<double> s(n_pos, 0.0);
        double mx = -INFINITY, sum = 0;
        for (uint32_t t = c.first; t < n_pos; ++t) {
          double d = 0;
          for (uint32_t i = 0; i < hd; ++i) d += double{q[h * hd + i]} * kr[row(t) + kvh * hd + i];
          s[t] = c.softcap > 0 ? c.softcap * std::tanh(d * scale / c.softcap) : d * scale;
          mx = std::max(mx, s[t]);
        }
        if (c.sinks) mx = std::max(mx, double{sink_logits[h]});
        for (uint32_t t = c.first; t < n_pos; ++t) sum += (s[t] = std::exp(s[t] - mx));
        if (c.sinks) sum += std::exp(sink_logits[h] - mx);
        for (uint32_t i = 0; i < hd; ++i) {
          double o = 0;
          for (uint32_t t = c.first; t < n_pos; ++t) o += s[t] / sum * vr[row(t) + kvh * hd + i];
          expected[h * hd + i] = static_cast<float>(o);
        }
      }
      for (uint32_t tile : {16u, 96u, 0u}) {
        auto a = act_layout(q, n_head * hd);
        auto abuf = upload_floats(device(), a.host);
        auto kbuf = upload(device(), kb);
        auto vbuf = upload(device(), vb);
        KernelVariant v{planner::KernelOp::attention, 16, planner::kWholeVector,
                        planner::ActivationType::f32, tile};
        // The token at position n_pos - 1 of sequence 0; a window starts it at c.first.
        auto pass = upload(device(), std::as_bytes(std::span<const uint32_t>({n_pos - 1, 0u})));
        auto sinks = upload_floats(device(), sink_logits);
        Ops ops(device());
        auto st = ops.attention(
            *abuf, *kbuf, *vbuf, *pass, *sinks, v, n_head, hd, context, kv,
            {a.in_off, a.out_off, n_head / n_head_kv, n_kv, static_cast<uint32_t>(layer_off),
             c.first > 0 ? n_pos - c.first : 0, scale, 0, c.ring, c.softcap, 0, c.sinks ? 1u : 0u});
        ASSERT_TRUE(st.is_ok()) << st.error().describe();
        const auto after = download_floats(device(), *abuf);
        expect_untouched(a, after, n_head * hd);
        EXPECT_LE(device::nmse(out_span(after, a, n_head * hd), expected), 1e-10)
            << v.name() << " kv " << planner::to_string(kv) << " first " << c.first << " ring "
            << c.ring << " softcap " << c.softcap << " sinks " << c.sinks;
      }
    }
  }
}

// A pass of 70 tokens of one sequence (positions 10..79: two workgroups of 64, the second
// partial), one query per invocation (engine_attention_queries.comp, Vulkan), against today's
// attention kernel on the same inputs: heads of 64 and 128 (4 query heads over 2 KV heads), f32
// and f16 caches, the whole context, a sliding window of 16 over a ring of 32 slots, soft-capped
// scores and per-head sinks. OpenCL has no such kernel and refuses it by name.
TEST_F(EngineKernels, AttentionByQueriesMatchesTodaysAttentionOverAPass) {
  const uint32_t n_head = 4, n_head_kv = 2, context = 100, tokens = 70, pos0 = 10;
  if (device().info().id.api != core::Api::vulkan) {
    auto refused =
        device::attention_queries_source(device().info().id.api, 64, 64, planner::KvPrecision::f32);
    ASSERT_FALSE(refused.is_ok());
    EXPECT_NE(refused.error().message.find("attention by queries runs on Vulkan"),
              std::string::npos)
        << refused.error().message;
    return;
  }
  const std::vector<float> sink_logits = {0.5f, -1.0f, 3.0f, 0.0f};
  struct Case {
    uint32_t window, ring;
    float softcap;
    bool sinks;
  };
  for (uint32_t hd : {64u, 128u}) {
    const uint32_t n_q = n_head * hd, n_kv = n_head_kv * hd, stride = 2 * n_q;
    const uint64_t cache_elems = uint64_t{context} * n_kv;
    const auto act = random_floats(uint64_t{tokens} * stride, 81 + hd, 2.0f);
    const auto kf = random_floats(cache_elems, 82, 1.0f);
    const auto vf = random_floats(cache_elems, 83, 1.0f);
    std::vector<uint32_t> pass;
    for (uint32_t t = 0; t < tokens; ++t) pass.insert(pass.end(), {pos0 + t, 0u});
    for (auto kv : {planner::KvPrecision::f32, planner::KvPrecision::f16}) {
      std::vector<std::byte> kb(cache_elems * (kv == planner::KvPrecision::f32 ? 4 : 2)),
          vb(kb.size());
      for (uint64_t i = 0; i < cache_elems; ++i) {
        if (kv == planner::KvPrecision::f32) {
          std::memcpy(&kb[i * 4], &kf[i], 4);
          std::memcpy(&vb[i * 4], &vf[i], 4);
        } else {
          const uint16_t kh = core::f32_to_f16(kf[i]), vh = core::f32_to_f16(vf[i]);
          std::memcpy(&kb[i * 2], &kh, 2);
          std::memcpy(&vb[i * 2], &vh, 2);
        }
      }
      for (const Case c : {Case{0, context, 0.0f, false}, Case{16, 32, 0.0f, false},
                           Case{0, context, 2.0f, false}, Case{16, 32, 0.0f, true}}) {
        const device::AttentionParams p{0,
                                        n_q,
                                        n_head / n_head_kv,
                                        n_kv,
                                        0,
                                        c.window,
                                        1.0f / std::sqrt(static_cast<float>(hd)),
                                        stride,
                                        c.ring,
                                        c.softcap,
                                        0,
                                        c.sinks ? 1u : 0u};
        auto run = [&](bool by_queries) {
          auto abuf = upload_floats(device(), act);
          auto kbuf = upload(device(), kb);
          auto vbuf = upload(device(), vb);
          auto pbuf = upload(device(), std::as_bytes(std::span<const uint32_t>(pass)));
          auto sinks = upload_floats(device(), sink_logits);
          Ops ops(device());
          const KernelVariant v{planner::KernelOp::attention, 64, planner::kWholeVector,
                                planner::ActivationType::f32, 0};
          auto st = by_queries ? ops.attention_queries(*abuf, *kbuf, *vbuf, *pbuf, *sinks, 64,
                                                       n_head, hd, kv, p, tokens)
                               : ops.attention(*abuf, *kbuf, *vbuf, *pbuf, *sinks, v, n_head, hd,
                                               context, kv, p, tokens);
          EXPECT_TRUE(st.is_ok()) << st.error().describe();
          return download_floats(device(), *abuf);
        };
        const auto want = run(false), got = run(true);
        ASSERT_EQ(got.size(), want.size());
        double worst = 0;
        for (uint32_t t = 0; t < tokens; ++t) {
          const auto at = static_cast<ptrdiff_t>(uint64_t{t} * stride);
          // The queries are untouched; the outputs agree token by token.
          EXPECT_TRUE(std::equal(got.begin() + at, got.begin() + at + n_q, act.begin() + at));
          worst =
              std::max(worst, device::nmse(std::span<const float>(got).subspan(at + n_q, n_q),
                                           std::span<const float>(want).subspan(at + n_q, n_q)));
        }
        EXPECT_LE(worst, 1e-10) << "head " << hd << " kv " << planner::to_string(kv) << " window "
                                << c.window << " softcap " << c.softcap << " sinks " << c.sinks;
      }
    }
  }
}

TEST_F(EngineKernels, BuffersOfTwoDevicesAreRefusedNamingBoth) {
  auto other = backends::open(core::DeviceId{core::Api::host, 0}, core::Options{});
  ASSERT_TRUE(other.is_ok()) << other.error().describe();
  const uint32_t n = 64;
  std::vector<float> w(n * 4, 0.5f);
  auto foreign_weights = upload_floats(**other, w);  // on host
  auto a = act_layout(random_floats(n, 71), 4);
  auto abuf = upload_floats(device(), a.host);
  Ops ops(device());
  KernelVariant v{planner::KernelOp::matvec, 64};
  auto st = ops.matvec(*foreign_weights, TensorType::f32, v, n, 4, *abuf, a.in_off, a.out_off);
  ASSERT_FALSE(st.is_ok());
  const std::string msg = st.error().describe();
  EXPECT_NE(msg.find(device().name()), std::string::npos) << msg;
  EXPECT_NE(msg.find((*other)->name()), std::string::npos) << msg;
  EXPECT_NE(msg.find("two devices"), std::string::npos) << msg;
  // Nothing ran: the output keeps its sentinels.
  const auto after = download_floats(device(), *abuf);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(after[a.out_off + i], kSentinel);
}

}  // namespace
}  // namespace gauntlet::engine::test
