#include "reports/pass_rows.h"

#include <cstdio>

namespace gauntlet::reports::detail {

namespace {
std::string fixed(double v, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}
}  // namespace

std::string pp_label(const ProfileFigures& f) {
  return f.pp_tokens ? "pp" + std::to_string(*f.pp_tokens) : "";
}

std::string tg_label(const ProfileFigures& f) {
  return f.tg_tokens ? "tg" + std::to_string(*f.tg_tokens) : "";
}

std::vector<std::vector<std::string>> pass_rows(const std::vector<Profile>& profiles) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : profiles) {
    const auto& f = p.figures;
    if (!f.pp_tok_s) continue;
    if (rows.empty()) rows.push_back({"PROFILE", "VERDICT", "PP", "TG", "GFLOP/S", "OF F32 PEAK"});
    rows.push_back({p.name, to_string(p.verdict),
                    pp_label(f) + " " + fixed(*f.pp_tok_s, 1) + " tok/s",
                    f.tok_s ? tg_label(f) + " " + fixed(*f.tok_s, 1) + " tok/s" : "-",
                    f.achieved_gflops ? fixed(*f.achieved_gflops, 1) : "-",
                    f.fraction_of_f32_peak ? fixed(100 * *f.fraction_of_f32_peak, 0) + "%" : "-"});
  }
  return rows;
}

}  // namespace gauntlet::reports::detail
