#pragma once
// The machine's signals since the last health run (signals/): each DRM card's error counters
// against the ones the state file kept, and the kernel log's records after the last record number
// it kept. A moved error counter (RAS, AER, PCIe replay) or a reset or hang line naming a card is
// critical; a link trained to fewer lanes than its maximum, or a throttle reason active while the
// card is idle, is a warning. The first run has nothing to compare with: it keeps the counters and
// the log's position and says so.
#include <map>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/options.h"
#include "reports/health.h"

namespace gauntlet::harness {

struct SignalsSince {
  std::vector<reports::HealthCheck> node_checks;  // the kernel log
  // Per DRM card with a PCI bus id: its checks, by bus id ("0000:c1:00.0").
  std::map<std::string, std::vector<reports::HealthCheck>> by_bus_id;
  std::map<std::string, std::string> card_of;  // bus id -> "card0"
  core::Json state;                            // what the next run compares with
};

// `last`: the state file's JSON (an empty object on the first run).
SignalsSince read_signals_since(const core::Options& options, const core::Json& last);

}  // namespace gauntlet::harness
