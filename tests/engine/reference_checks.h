#pragma once
// Checks of the host reference shared by the engine tests: passes against the token-by-token
// decode, and the cpu device's fast products against the exact ones.
#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

#include "engine/cpu/fast_products.h"
#include "engine/device/profile_check.h"
#include "engine/reference/decoder.h"
#include "test_models.h"

namespace gauntlet::engine::test {

// Passes of each micro-batch give the logits of a one-token-at-a-time decode bit for bit (a
// recurrent layer reads the state its previous token left, within a pass or across passes).
inline void expect_passes_give_token_by_token_logits(
    const model::LoadedModel& m, std::initializer_list<uint32_t> micro_batches) {
  const std::vector<int32_t> ids = {1, 7, 42, 3, 9, 11, 60, 2, 5, 8, 13, 21, 34, 55, 4, 6};
  std::vector<float> one;
  auto d = reference::Decoder::create(m, {{.threads = 1}});
  ASSERT_TRUE(d.is_ok());
  for (int32_t id : ids) {
    auto l = (*d)->step(id);
    ASSERT_TRUE(l.is_ok()) << l.error().describe();
    one.insert(one.end(), l->begin(), l->end());
  }
  for (uint32_t mb : micro_batches) {
    auto batched = reference::Decoder::create(m, {{.threads = 2, .micro_batch = mb}});
    ASSERT_TRUE(batched.is_ok());
    auto l = (*batched)->forward(tokens_of(ids));
    ASSERT_TRUE(l.is_ok()) << l.error().describe();
    ASSERT_EQ(l->size(), one.size());
    for (size_t i = 0; i < one.size(); ++i) ASSERT_EQ((*l)[i], one[i]) << "mb " << mb << " " << i;
  }
}

// The cpu device's fast products (8-bit activations) against the exact reference, as every
// device is checked: 12 greedy tokens after a 4-token prompt the reference's (or parting only at
// a near tie), logits within the bound. The result, for further checks.
inline device::CheckResult expect_fast_products_within_bound(const model::LoadedModel& m) {
  auto exact = reference::Decoder::create(m, {2, planner::KvPrecision::f32, 32}).value();
  reference::DecodeOptions fast_options{2, planner::KvPrecision::f32, 32};
  fast_options.products = cpu::make_fast_products();
  auto fast = reference::Decoder::create(m, fast_options).value();
  device::DecodeConfig config;
  config.q8_activations = true;
  const int32_t prompt[] = {1, 2, 3, 4};
  auto r = device::compare_greedy(*fast, *exact, prompt, 12, config);
  EXPECT_TRUE(r.is_ok()) << r.error().describe();
  if (!r.is_ok()) return {};
  EXPECT_TRUE(r->tokens_match || !r->note.empty()) << r->reason;
  EXPECT_GT(r->logits_nmse, 0.0);  // the fast products did run
  EXPECT_LT(r->logits_nmse, r->nmse_bound);
  return *r;
}

}  // namespace gauntlet::engine::test
