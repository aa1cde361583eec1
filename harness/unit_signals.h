#pragma once
// The machine's own signals around each unit of one device (signals/): a sampler beside the unit,
// the error counters before and after it, the kernel log between its two cursors, and the causes
// they give: a hang or reset the kernel logged, an error counter that moved, a link trained below
// its maximum through the unit. Throttling is not a cause: a throttled profile is still correct,
// and its reason says that its speed was measured while throttled.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/json.h"
#include "core/options.h"
#include "core/outcome.h"
#include "harness/journal.h"
#include "reports/report.h"
#include "signals/counters.h"
#include "signals/device_signals.h"
#include "signals/gpu_log.h"
#include "signals/kmsg_cursor.h"
#include "signals/nvml.h"
#include "signals/sampler.h"

namespace gauntlet::harness {

struct UnitEvidence {
  std::string unit;
  double at = 0;  // seconds from the device's first unit to this one's start
  double seconds = 0;
  std::vector<signals::DeviceSummary> during;
  std::vector<signals::CounterChange> moved;
  std::vector<signals::GpuLogEvent> kernel;  // lines naming this device

  // The first of: hang_or_reset (the kernel's line), memory_errors (the counter and its delta),
  // link_errors (AER or PCIe replay moved), link_degraded; none when the unit was clean.
  std::optional<reports::Cause> cause() const;
  // "measured while throttled (pl1 1.2 s of 3.0 s)", or empty.
  std::string throttle_note() const;
  // The hottest any of the device's temperature sensors read during the unit; none without one.
  std::optional<double> hottest_c() const;
  core::Json to_json() const;
};

// A unit's evidence as the report and the journal keep it (UnitEvidence::to_json): its cause and
// its throttle note.
std::optional<reports::Cause> evidence_cause(const core::Json& evidence);
std::string evidence_throttle_note(const core::Json& evidence);

// What one sentence of a cause says, for a row's and a profile's reason.
std::string describe(const reports::Cause& cause);

class DeviceWatch {
 public:
  // The signals of `device`: its PCI device's sysfs files (and NVML's view of it, where NVML
  // loads) where it has a bus id, the CPU's otherwise; the kernel log at options.kmsg_path.
  DeviceWatch(const core::DeviceInfo& device, const core::Options& options);
  ~DeviceWatch();
  DeviceWatch(const DeviceWatch&) = delete;
  DeviceWatch& operator=(const DeviceWatch&) = delete;

  void begin(const std::string& unit);
  // The unit's evidence; with a journal, also appended to it as "signals:<unit>", so that a
  // resumed run keeps what the kernel log and the counters said while the unit ran.
  UnitEvidence end(Journal* journal = nullptr);
  // A unit read back from the journal: its evidence too, where the journal holds it. Returns it
  // (null when the journal has none).
  const core::Json* restore(const std::string& unit, const Journal& journal);

  // {"sources": [...], "absent": [...], "notes": [...], "units": {unit: evidence}}: what the
  // report keeps of every unit watched so far.
  core::Json telemetry() const;
  // {"firmware": "...", "link": {speed_gts, width, max_speed_gts, max_width}}, what the device's
  // signals say of it (either may be absent): the report keeps it as telemetry.identity, and the
  // health gate compares it with its baseline's.
  core::Json identity() const;
  // A failed row for each unit whose evidence gave a cause.
  const std::vector<core::Row>& rows() const { return rows_; }

 private:
  std::string device_;
  std::string bus_id_;
  std::shared_ptr<signals::Nvml> nvml_;
  std::vector<signals::DeviceSignals> sources_;
  std::vector<std::string> notes_;
  std::string kmsg_path_;
  bool kmsg_readable_ = true;

  UnitEvidence end_unit();

  std::string unit_;
  bool sampler_was_running_ = false;
  std::unique_ptr<signals::Sampler> sampler_;
  std::vector<signals::Counters> before_;
  std::optional<signals::KmsgCursor> cursor_;
  std::chrono::steady_clock::time_point started_;
  std::optional<std::chrono::steady_clock::time_point> first_started_;

  core::Json units_ = core::Json::object();
  std::vector<core::Row> rows_;
};

}  // namespace gauntlet::harness
