#include "reports/fit_rows.h"

#include <cstdio>

#include "reports/text_util.h"

namespace gauntlet::reports::detail {

std::string fit_title(const std::vector<FitAnswer>& fit) {
  if (fit.empty()) return "";
  return "fit (planned against " + format_bytes(fit.front().budget_bytes) + ", " +
         fit.front().budget_basis + "; as llama.cpp allocates: the device's weights, " +
         fit.front().kv_cache + " KV cache and compute buffer" +
         (fit.front().flash_attention ? " with flash attention" : "") + " at micro-batch 512)";
}

namespace {

// "756 MiB (4.2 GiB without the window)" where a sliding window saves memory.
std::string kv_text(const FitAnswer& a) {
  std::string text = format_bytes(a.kv_bytes);
  if (a.kv_bytes_without_window > a.kv_bytes) {
    text += " (" + format_bytes(a.kv_bytes_without_window) + " without the window)";
  }
  if (a.state_bytes > 0) text += " + " + format_bytes(a.state_bytes) + " recurrent state";
  return text;
}

// ", measured 5.1 tok/s" where a placed profile of those layer slots ran.
std::string measured_text(const FitAnswer::Placement& p) {
  if (!p.tokens_per_second) return "";
  char text[48];
  std::snprintf(text, sizeof text, ", measured %.1f tok/s", *p.tokens_per_second);
  return text;
}

std::string experts_text(const FitAnswer::Placement& p) {
  if (p.expert_layers_on_host == 0) return "";
  return ", experts of the first " + std::to_string(p.expert_layers_on_host) +
         " layers on the host";
}

}  // namespace

std::vector<std::vector<std::string>> fit_rows(const std::vector<FitAnswer>& fit) {
  std::vector<std::vector<std::string>> rows{
      {"FORMAT", "WEIGHTS", "FITS UP TO", "PLANNED", "KV CACHE", "WHY"}};
  for (const auto& a : fit) {
    rows.push_back({a.weight_format, format_bytes(a.weight_bytes),
                    a.placement
                        ? std::to_string(a.placement->device_slots) + " of " +
                              std::to_string(a.placement->layer_slots) + " layers" +
                              experts_text(*a.placement) + " at context " +
                              std::to_string(a.placement->context) + measured_text(*a.placement)
                    : a.largest_context ? "context " + std::to_string(a.largest_context)
                                        : "does not fit",
                    format_bytes(a.planned_bytes), kv_text(a), a.why});
  }
  return rows;
}

}  // namespace gauntlet::reports::detail
