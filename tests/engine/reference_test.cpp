// The reference decode against a separate naive implementation: everything dequantized to f32
// first, then plain single-threaded loops in double precision.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "backends/host/host_device.h"
#include "engine/host_decoder.h"
#include "engine/reference/decoder.h"
#include "test_models.h"

namespace gauntlet::engine {
namespace {

using model::TensorType;

struct Naive {
  model::ModelShape s;
  std::map<std::string, std::vector<float>> w;  // dequantized, row-major [n_out][n_in]
  std::vector<std::vector<float>> kc, vc;       // per layer, [pos * n_kv + i]

  Naive(const model::GgufInfo& info, std::span<const std::byte> bytes,
        const model::ModelShape& shape)
      : s(shape), kc(shape.n_layer), vc(shape.n_layer) {
    for (const auto& t : info.tensors) {
      std::vector<float> f(t.n_elements);
      model::dequantize_row(t.type, bytes.data() + info.data_offset + t.offset, f.data(),
                            t.n_elements);
      w[t.name] = std::move(f);
    }
    if (s.tied_output) w["output.weight"] = w["token_embd.weight"];
  }

  std::vector<double> matvec(const std::string& name, const std::vector<double>& x) {
    const auto& m = w.at(name);
    const size_t n_in = x.size(), n_out = m.size() / n_in;
    std::vector<double> y(n_out, 0.0);
    for (size_t r = 0; r < n_out; ++r) {
      for (size_t i = 0; i < n_in; ++i) y[r] += static_cast<double>(m[r * n_in + i]) * x[i];
    }
    return y;
  }

  std::vector<double> norm(const std::vector<double>& x, const std::string& name) {
    double ss = 0;
    for (double v : x) ss += v * v;
    const double scale = 1.0 / std::sqrt(ss / x.size() + s.rms_eps);
    std::vector<double> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * scale * w.at(name)[i];
    return y;
  }

  void rope(std::vector<double>& v, uint32_t heads, uint32_t pos) {
    const uint32_t hd = s.head_dim(), rd = s.rope_dims();
    for (uint32_t h = 0; h < heads; ++h) {
      for (uint32_t i = 0; i < rd; i += 2) {
        const double theta = pos * std::pow(static_cast<double>(s.rope_freq_base), -double(i) / rd);
        const double a = v[h * hd + i], b = v[h * hd + i + 1];
        v[h * hd + i] = a * std::cos(theta) - b * std::sin(theta);
        v[h * hd + i + 1] = a * std::sin(theta) + b * std::cos(theta);
      }
    }
  }

  std::vector<double> step(int32_t token, uint32_t pos) {
    const uint32_t E = s.n_embd, hd = s.head_dim(), nkv = s.n_embd_kv();
    const auto& emb = w.at("token_embd.weight");
    std::vector<double> x(emb.begin() + token * E, emb.begin() + (token + 1) * E);
    for (uint32_t l = 0; l < s.n_layer; ++l) {
      const std::string p = "blk." + std::to_string(l) + ".";
      auto h = norm(x, p + "attn_norm.weight");
      auto q = matvec(p + "attn_q.weight", h), k = matvec(p + "attn_k.weight", h),
           v = matvec(p + "attn_v.weight", h);
      rope(q, s.n_head, pos);
      rope(k, s.n_head_kv, pos);
      kc[l].insert(kc[l].end(), k.begin(), k.end());
      vc[l].insert(vc[l].end(), v.begin(), v.end());
      std::vector<double> out(E, 0.0);
      for (uint32_t head = 0; head < s.n_head; ++head) {
        const uint32_t kvh = head / (s.n_head / s.n_head_kv);
        std::vector<double> sc(pos + 1);
        double mx = -1e300;
        for (uint32_t t = 0; t <= pos; ++t) {
          double d = 0;
          for (uint32_t i = 0; i < hd; ++i) d += q[head * hd + i] * kc[l][t * nkv + kvh * hd + i];
          sc[t] = d / std::sqrt(double(hd));
          mx = std::max(mx, sc[t]);
        }
        double sum = 0;
        for (auto& e : sc) sum += (e = std::exp(e - mx));
        for (uint32_t t = 0; t <= pos; ++t) {
          for (uint32_t i = 0; i < hd; ++i) {
            out[head * hd + i] += sc[t] / sum * vc[l][t * nkv + kvh * hd + i];
          }
        }
      }
      auto o = matvec(p + "attn_output.weight", out);
      for (uint32_t i = 0; i < E; ++i) x[i] += o[i];
      h = norm(x, p + "ffn_norm.weight");
      auto g = matvec(p + "ffn_gate.weight", h), u = matvec(p + "ffn_up.weight", h);
      for (size_t i = 0; i < g.size(); ++i) g[i] = g[i] / (1 + std::exp(-g[i])) * u[i];
      auto d = matvec(p + "ffn_down.weight", g);
      for (uint32_t i = 0; i < E; ++i) x[i] += d[i];
    }
    return matvec("output.weight", norm(x, "output_norm.weight"));
  }
};

double relative_error(std::span<const float> got, const std::vector<double>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / den);
}

using model::FileType;

TEST(Reference, MatchesNaiveImplementationInAllFormats) {
  for (const char* shape_name : {"test-tiny", "test-gqa"}) {
    auto shape = model::preset_shape(shape_name).value();
    for (FileType format : model::all_file_types()) {
      SCOPED_TRACE(std::string(shape_name) + " " + model::to_string(format));
      auto bytes = test::synthetic_bytes(shape, format);
      auto info = model::parse_gguf(bytes).value();
      auto m = model::load_model(info, bytes);
      ASSERT_TRUE(m.is_ok());
      auto decoder = reference::Decoder::create(*m, {2, planner::KvPrecision::f32, 16}).value();
      Naive naive(info, bytes, m->shape);
      const int32_t tokens[] = {1, 17, 200, 5, 99, 42, 3, 250};
      double worst = 0;
      for (uint32_t pos = 0; pos < 8; ++pos) {
        auto got = decoder->step(tokens[pos]);
        ASSERT_TRUE(got.is_ok());
        auto want = naive.step(tokens[pos], pos);
        worst = std::max(worst, relative_error(*got, want));
      }
      EXPECT_LT(worst, 1e-5);
    }
  }
}

TEST(Reference, TiedOutputAndPartialRope) {
  auto shape = model::preset_shape("test-tiny").value();
  shape.tied_output = true;
  shape.rope_dim = 8;
  shape.rope_freq_base = 500000.0f;
  auto bytes = test::synthetic_bytes(shape, FileType::q8_0);
  auto info = model::parse_gguf(bytes).value();
  EXPECT_EQ(info.find("output.weight"), nullptr);
  auto m = model::load_model(info, bytes).value();
  EXPECT_TRUE(m.shape.tied_output);
  EXPECT_EQ(m.shape.rope_dims(), 8u);
  auto decoder = reference::Decoder::create(m, {1, planner::KvPrecision::f32, 8}).value();
  Naive naive(info, bytes, m.shape);
  for (uint32_t pos = 0; pos < 5; ++pos) {
    auto got = decoder->step(static_cast<int32_t>(pos * 31));
    ASSERT_TRUE(got.is_ok());
    EXPECT_LT(relative_error(*got, naive.step(static_cast<int32_t>(pos * 31), pos)), 1e-5);
  }
}

std::vector<std::vector<float>> run_greedy(const model::LoadedModel& m, unsigned threads,
                                           std::vector<int32_t>* tokens,
                                           planner::KvPrecision kv = planner::KvPrecision::f32) {
  auto decoder = reference::Decoder::create(m, {threads, kv, 40}).value();
  std::vector<std::vector<float>> all;
  const int32_t prompt[] = {1, 2, 3};
  auto out = reference::greedy_decode(
      [&](int32_t t) { return decoder->step(t); }, prompt, 32,
      [&](uint32_t, int32_t, std::span<const float> l) { all.emplace_back(l.begin(), l.end()); });
  EXPECT_TRUE(out.is_ok());
  *tokens = *out;
  return all;
}

TEST(Reference, DeterministicAcrossRunsAndThreadCounts) {
  auto shape = model::preset_shape("test-gqa").value();
  auto bytes = test::synthetic_bytes(shape, FileType::q4_0);
  auto m = model::load_model(model::parse_gguf(bytes).value(), bytes).value();
  std::vector<int32_t> t1, t2, t4, again;
  auto l1 = run_greedy(m, 1, &t1);
  auto l2 = run_greedy(m, 2, &t2);
  auto l4 = run_greedy(m, 4, &t4);
  auto l1b = run_greedy(m, 1, &again);
  ASSERT_EQ(t1.size(), 32u);
  EXPECT_EQ(t1, t2);
  EXPECT_EQ(t1, t4);
  EXPECT_EQ(t1, again);
  EXPECT_EQ(l1, l2);  // bit-identical logits, every step
  EXPECT_EQ(l1, l4);
  EXPECT_EQ(l1, l1b);
  // Not degenerate: the greedy tokens change along the way.
  std::set<int32_t> distinct(t1.begin(), t1.end());
  EXPECT_GE(distinct.size(), 4u);
  // An f16 KV cache changes the logits a little, not the picture.
  std::vector<int32_t> th;
  auto lh = run_greedy(m, 2, &th, planner::KvPrecision::f16);
  EXPECT_NE(lh, l1);
  EXPECT_EQ(th[0], t1[0]);
}

TEST(Reference, HostDeviceDecodeEqualsInMemoryDecode) {
  auto shape = model::preset_shape("test-tiny").value();
  auto path = test::temp_path("hostdev.gguf");
  ASSERT_TRUE(model::write_synthetic_model(shape, FileType::q8_0, 3, path, true).is_ok());
  auto file = model::GgufFile::open(path).value();
  auto device = backends::host::open();
  auto loaded = loader::load_to_device(*file, *device, {4096});
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().describe();
  auto dd = HostDeviceDecoder::create(*device, *loaded, {2, planner::KvPrecision::f32, 16});
  ASSERT_TRUE(dd.is_ok()) << dd.error().describe();
  auto m = model::load_model(file->info(), file->bytes()).value();
  auto ref = reference::Decoder::create(m, {2, planner::KvPrecision::f32, 16}).value();
  for (int32_t t : {5, 9, 100}) {
    auto a = (*dd)->step(t);
    auto b = ref->step(t);
    ASSERT_TRUE(a.is_ok() && b.is_ok());
    EXPECT_TRUE(std::equal(a->begin(), a->end(), b->begin(), b->end()));
  }
  auto bad = (*dd)->step(256);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message.find("outside the vocabulary"), std::string::npos);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gauntlet::engine
