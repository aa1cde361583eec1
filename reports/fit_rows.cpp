#include "reports/fit_rows.h"

#include "reports/text_util.h"

namespace gauntlet::reports::detail {

std::string fit_title(const std::vector<FitAnswer>& fit) {
  if (fit.empty()) return "";
  return "fit (planned against " + format_bytes(fit.front().budget_bytes) + ", " +
         fit.front().budget_basis + "; weights + f16 KV cache + activations)";
}

std::vector<std::vector<std::string>> fit_rows(const std::vector<FitAnswer>& fit) {
  std::vector<std::vector<std::string>> rows{{"FORMAT", "WEIGHTS", "FITS UP TO", "PLANNED", "WHY"}};
  for (const auto& a : fit) {
    rows.push_back(
        {a.weight_format, format_bytes(a.weight_bytes),
         a.largest_context ? "context " + std::to_string(a.largest_context) : "does not fit",
         format_bytes(a.planned_bytes), a.why});
  }
  return rows;
}

}  // namespace gauntlet::reports::detail
