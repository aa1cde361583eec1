#include "tests/reports/fleet_fixture.h"

#include <cstdio>

#include "tests/reports/sample_report.h"

namespace gauntlet::reports::testing {

namespace {

constexpr uint64_t kOneMiB = 1024 * 1024;

Profile& recommended(DeviceReport& d) {
  for (auto& p : d.profiles) {
    if (p.name == d.recommendation->profile) return p;
  }
  throw std::runtime_error("the sample device has no recommended profile");
}

// Siblings differ a little: -0%, -1%, -2% of the budget and -0%, -3%, -6% of tok/s.
void jitter(DeviceReport& d, int node) {
  const double step = static_cast<double>(node % 3);
  d.stress->safe_budget_bytes =
      static_cast<uint64_t>(static_cast<double>(d.stress->safe_budget_bytes) * (1 - 0.01 * step));
  auto& p = recommended(d);
  *p.figures.tok_s *= 1 - 0.03 * step;
}

}  // namespace

std::vector<Report> twelve_machines() {
  std::vector<Report> reports;
  for (int node = 1; node <= 12; ++node) {
    auto r = sample_report();
    char host[16];
    std::snprintf(host, sizeof host, "node-%02d", node);
    r.host.hostname = host;
    auto device = r.devices.at(node <= 6 ? 0 : 1);
    if (!device.stress) {
      device.stress = StressResult{};
      device.stress->safe_budget_bytes = 3000 * kOneMiB;
    }
    jitter(device, node);
    if (r.host.hostname == kLowBudgetHost) device.stress->safe_budget_bytes /= 2;
    if (r.host.hostname == kFlippedHost) {
      auto& q8 = recommended(device);
      q8.verdict = ProfileVerdict::unsafe;
      q8.reason = "logits NMSE 0.21 > 0.001 at token 3";
      q8.figures.tok_s.reset();
      device.recommendation.reset();
    }
    r.devices = {device};
    r.summary = compute_summary(r);
    reports.push_back(std::move(r));
  }
  return reports;
}

}  // namespace gauntlet::reports::testing
