#pragma once
// The fleet report: devices grouped by model, driver version and memory size, and per group the
// machines that differ from their identical siblings (a verdict against the group's majority, a
// safe budget or a recommended profile's tok/s below the group's median by more than a threshold;
// held busy, a steady speed that much below or a temperature that much above the group's).
//
// Reports are folded in one at a time (FleetBuilder::add) and only a compact summary of each
// device is kept, so that merging a thousand reports needs little memory.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/json.h"
#include "reports/fleet_input.h"
#include "reports/report.h"

namespace gauntlet::reports {

inline constexpr const char* kFleetSchemaVersion = "1.1";

// What makes two devices "identical siblings".
struct GroupKey {
  std::string model;          // the device's name, with the simulate preset when simulated
  std::string driver;         // "opencl 5.0+debian, vulkan 24.2.8" (each usable view's API)
  uint64_t memory_bytes = 0;  // the largest global memory any view reports (or the clamp)
  bool operator==(const GroupKey&) const = default;
};

struct MachineProfile {
  uint32_t id = 0;  // index into FleetReport::profile_names
  ProfileVerdict verdict = ProfileVerdict::untested;
  std::optional<double> tok_s;
  uint32_t reason = 0;  // index into FleetReport::reasons; 0 is "" (and every safe profile's)
};

// One device of one machine, as much as the fleet report needs.
struct FleetMachine {
  std::string host;
  std::string device;  // the physical device key
  std::string source;  // the report file
  size_t group = 0;    // index into FleetReport::groups
  std::optional<uint64_t> budget_bytes;
  std::string recommended;               // the machine's own recommended profile; empty when none
  std::vector<MachineProfile> profiles;  // sorted by profile id
  std::string soak_profile;              // the profile its soak held; empty without one
  std::optional<double> steady_tok_s;
  std::optional<double> max_temperature_c;
};

struct Spread {
  double min = 0.0;
  double median = 0.0;
  double max = 0.0;
  size_t count = 0;  // how many machines had the figure
};

struct OutlierReason {
  std::string kind;     // "verdict", "budget", "tok_s", "steady_tok_s", "temperature"
  std::string subject;  // the profile for a verdict or tok/s; empty for the budget
  std::string value;    // the machine's
  std::string group;    // the group's majority or median
  std::string message;  // one line a person can act on
};

struct Outlier {
  size_t machine = 0;  // index into FleetReport::machines
  std::vector<OutlierReason> reasons;
};

struct FleetGroup {
  GroupKey key;
  std::vector<size_t> machines;            // indices into FleetReport::machines
  std::vector<std::string> majority_safe;  // profiles safe on more than half, sorted
  std::string recommended;                 // the profile most machines recommend
  std::optional<Spread> budget_bytes;
  std::optional<Spread> recommended_tok_s;  // the group's recommended profile on each machine
  // The soak most machines held (the same profile), its steady speed and hottest temperature.
  std::string soak_profile;
  std::optional<Spread> steady_tok_s;
  std::optional<Spread> max_temperature_c;
  std::vector<Outlier> outliers;
};

// A file that could not be merged, and why.
struct SkippedReport {
  std::string source;
  std::string reason;
};

struct FleetReport {
  double threshold = 0.1;
  std::vector<std::string> profile_names;  // profile id -> name
  std::vector<std::string> reasons;        // reason id -> text; machines share the same texts
  std::vector<FleetMachine> machines;
  std::vector<FleetGroup> groups;
  std::vector<SkippedReport> skipped;
  size_t reports = 0;  // reports merged (skipped ones not counted)

  size_t outlier_count() const;
};

class FleetBuilder {
 public:
  // `threshold`: a fraction; a figure below the group median by more than it is an outlier.
  explicit FleetBuilder(double threshold = 0.1);

  void add(const std::string& source, const FleetInput& report);
  void add(const std::string& source, const Report& report);
  void skip(const std::string& source, const std::string& reason);
  // Groups, majorities, spreads and outliers; the builder is spent afterwards.
  FleetReport finish();

 private:
  uint32_t profile_id(const std::string& name);
  uint32_t reason_id(const std::string& text);

  FleetReport fleet_;
  std::vector<GroupKey> keys_;
  std::unordered_map<std::string, uint32_t> profile_ids_;
  std::unordered_map<std::string, uint32_t> reason_ids_;
};

// A group needs this many machines before one of them can be told apart from the others.
inline constexpr size_t kMinGroupForOutliers = 3;

// Reads each report file (parse_fleet_input, a few files at a time on as many threads as there
// are cores) and folds it in, in the order given; a broken or foreign file is named in `skipped`
// with the reason, and the merge goes on.
FleetReport merge_report_files(const std::vector<std::string>& files, double threshold = 0.1);

GroupKey group_key(const FleetDeviceInput& device);
std::string describe(const GroupKey& key);

core::Json fleet_to_json(const FleetReport& fleet);
std::string render_fleet_text(const FleetReport& fleet);
std::string render_fleet_markdown(const FleetReport& fleet);
std::string render_fleet_html(const FleetReport& fleet);

}  // namespace gauntlet::reports
