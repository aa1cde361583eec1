// `gauntlet health`, the node gate, end to end on the real drivers: the baseline `gauntlet run`
// writes into the state folder, identity against it (a changed driver is `re-validate`), the
// deadline that cuts a slowed check, a wrong decode and the machine's signals (fixture sysfs tree,
// fake kernel log) as critical, an unreadable baseline as could-not-run, the JSON verdict against
// its schema. Every health run is timed: the gate must finish well inside Slurm's 60 s.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/json.h"
#include "reports/schema_check.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTinyShape = "n_embd=64,n_layer=1,n_head=2,n_ff=128,n_vocab=256,context=256";

struct Health {
  int exit_code = -1;
  std::string first_line;
  std::string rest;  // stdout after the first line
  double wall_s = 0;
};

// The shared baseline: one complete `gauntlet run` on the host, written into a state folder.
class HealthTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<TempDir>("health-suite");
    const auto started = std::chrono::steady_clock::now();
    run_result_ = run_command("GAUNTLET_STATE_DIR=" + (dir_->path() / "state").string() +
                              " GAUNTLET_CACHE_DIR=" + (dir_->path() / "cache").string() + " " +
                              gauntlet_exe() + " run --quiet --device host --shape " + kTinyShape +
                              " --out " + (dir_->path() / "report.json").string());
    run_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  static void TearDownTestSuite() { dir_.reset(); }

  void SetUp() override {
    ASSERT_EQ(run_result_.exit_code, 0) << run_result_.output;
    state_ = std::make_unique<TempDir>("health-state");
    fs::copy_file(baseline(), state_->path() / "baseline.json");
    kmsg_ = state_->write("kmsg", "6,1,1000,-;Linux version 6.1.0 (gauntlet test)\n");
  }

  static fs::path baseline() { return dir_->path() / "state" / "baseline.json"; }

  // Runs health with this test's state folder and fake kernel log; stdout only.
  Health health(const std::string& args, const std::string& env = "") const {
    const auto started = std::chrono::steady_clock::now();
    const auto r = run_command("GAUNTLET_STATE_DIR=" + state_->path().string() +
                               " GAUNTLET_KMSG=" + kmsg_.string() + " " + env + " " +
                               gauntlet_exe() + " health " + args + " 2>/dev/null");
    Health h;
    h.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    h.exit_code = r.exit_code;
    const size_t eol = r.output.find('\n');
    h.first_line = r.output.substr(0, eol);
    h.rest = eol == std::string::npos ? "" : r.output.substr(eol + 1);
    return h;
  }

  static core::Json verdict(const Health& h) {
    auto j = core::Json::parse(h.rest, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << h.rest;
    if (j.is_discarded()) return core::Json::object();
    EXPECT_TRUE(reports::check_health_schema(j).empty())
        << reports::check_health_schema(j).front().describe();
    return j;
  }

  static const core::Json* check(const core::Json& device, const std::string& id) {
    for (const auto& c : device["checks"]) {
      if (c["id"] == id) return &c;
    }
    return nullptr;
  }

  static std::unique_ptr<TempDir> dir_;
  static CommandResult run_result_;
  static double run_seconds_;
  std::unique_ptr<TempDir> state_;
  fs::path kmsg_;
};

std::unique_ptr<TempDir> HealthTest::dir_;
CommandResult HealthTest::run_result_;
double HealthTest::run_seconds_ = 0;

TEST_F(HealthTest, RunWritesTheBaselineIntoTheStateFolderAtomically) {
  ASSERT_TRUE(fs::exists(baseline()));
  EXPECT_EQ(read_text(baseline()), read_text(dir_->path() / "report.json"));
  EXPECT_NE(run_result_.output.find("baseline for `gauntlet health`: " + baseline().string()),
            std::string::npos)
      << run_result_.output;
  for (const auto& entry : fs::directory_iterator(dir_->path() / "state")) {
    EXPECT_EQ(entry.path().filename(), "baseline.json") << "left behind: " << entry.path();
  }
  RecordProperty("run_seconds", std::to_string(run_seconds_));
}

TEST_F(HealthTest, GoodBaselinePassesWithEveryCheckRun) {
  const auto h = health("--device host --format json");
  EXPECT_LT(h.wall_s, 60.0);
  EXPECT_EQ(h.exit_code, 0) << h.first_line << "\n" << h.rest;
  EXPECT_EQ(h.first_line.rfind("gauntlet: ok (1 devices, ", 0), 0u) << h.first_line;
  const auto j = verdict(h);
  EXPECT_EQ(j["status"], "pass");
  EXPECT_TRUE(j["baseline"]["found"].get<bool>());
  ASSERT_EQ(j["devices"].size(), 1u);
  const auto& host = j["devices"][0];
  EXPECT_EQ(host["device"], "host");
  for (const char* id : {"identity", "probe", "conform", "memory", "decode"}) {
    const auto* c = check(host, id);
    ASSERT_NE(c, nullptr) << id;
    EXPECT_EQ((*c)["status"], "pass") << id << ": " << (*c)["reason"];
    EXPECT_FALSE((*c)["not_run"].get<bool>()) << id;
  }
  EXPECT_TRUE((*check(host, "decode"))["metrics"]["tokens_match"].get<bool>());
  EXPECT_GE((*check(host, "memory"))["metrics"]["bytes"].get<uint64_t>(), 1u << 20);
  // The state file is all a health run leaves behind.
  EXPECT_TRUE(fs::exists(state_->path() / "health-state.json"));
  for (const auto& entry : fs::directory_iterator(state_->path())) {
    const auto name = entry.path().filename().string();
    EXPECT_TRUE(name == "baseline.json" || name == "health-state.json" || name == "kmsg") << name;
  }
}

TEST_F(HealthTest, ChangedDriverIsReValidateAWarningThatFailOnWarningFails) {
  auto j = core::Json::parse(read_text(baseline()));
  for (auto& d : j["devices"]) {
    for (auto& v : d["views"]) v["info"]["driver_version"] = "0.0.1-old";
  }
  std::ofstream(state_->path() / "baseline.json", std::ios::trunc) << j.dump();
  const auto h = health("--device host");
  EXPECT_LT(h.wall_s, 60.0);
  EXPECT_EQ(h.exit_code, 0) << h.first_line;
  EXPECT_NE(h.first_line.find("re-validate: host driver 0.0.1-old -> "), std::string::npos)
      << h.first_line;
  const auto strict = health("--device host --fail-on warning");
  EXPECT_LT(strict.wall_s, 60.0);
  EXPECT_EQ(strict.exit_code, 1) << strict.first_line;
}

// A fleet's merged report as the baseline: health reads this node's report through it, and a
// fleet report without this node could not run, naming the nodes it has.
TEST_F(HealthTest, AFleetReportLeadsToThisNodesReport) {
  const fs::path reports = state_->path() / "reports";
  fs::create_directories(reports);
  fs::copy_file(baseline(), reports / "node.json");
  const fs::path fleet = state_->path() / "fleet.json";
  const auto merged =
      run_command(gauntlet_exe() + " report merge " + (reports / "node.json").string() +
                  " --format json -o " + fleet.string());
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  const auto h = health("--device host --format json --baseline " + fleet.string());
  EXPECT_EQ(h.exit_code, 0) << h.first_line << "\n" << h.rest;
  const auto j = verdict(h);
  bool noted = false;
  for (const auto& c : j["node_checks"]) {
    if (c["id"] == "baseline") {
      noted = c["reason"].get<std::string>().find("this node's report in the fleet report") !=
              std::string::npos;
    }
  }
  EXPECT_TRUE(noted) << h.rest;
  EXPECT_EQ((*check(j["devices"][0], "identity"))["status"], "pass");

  auto other = core::Json::parse(read_text(fleet));
  for (auto& g : other["groups"]) {
    for (auto& m : g["machines"]) m["host"] = "another-node";
  }
  std::ofstream(fleet, std::ios::trunc) << other.dump();
  const auto missing = health("--device host --baseline " + fleet.string());
  EXPECT_EQ(missing.exit_code, 2) << missing.first_line;
  EXPECT_NE(missing.first_line.find("has no report of this node"), std::string::npos)
      << missing.first_line;
  EXPECT_NE(missing.first_line.find("another-node"), std::string::npos) << missing.first_line;
}

TEST_F(HealthTest, UnreadableBaselineCouldNotRunAndNamesIt) {
  const auto broken = state_->write("broken.json", "{\"schema_version\": ");
  const auto h = health("--device host --baseline " + broken.string());
  EXPECT_LT(h.wall_s, 60.0);
  EXPECT_EQ(h.exit_code, 2) << h.first_line;
  EXPECT_EQ(h.first_line.rfind("gauntlet: baseline " + broken.string() + " unreadable: ", 0), 0u)
      << h.first_line;
}

TEST_F(HealthTest, SlowCheckIsCutByTheDeadlineAndSaysSo) {
  const auto h =
      health("--device host --deadline 8 --format json", "GAUNTLET_TEST_FAULT=health.slow=memory");
  EXPECT_LT(h.wall_s, 20.0);
  EXPECT_EQ(h.exit_code, 0) << h.first_line;
  EXPECT_NE(h.first_line.find("host memory not run: deadline (cut after "), std::string::npos)
      << h.first_line;
  const auto j = verdict(h);
  EXPECT_EQ(j["status"], "warning");
  const auto& host = j["devices"][0];
  EXPECT_EQ((*check(host, "probe"))["status"], "pass");
  const auto& memory = *check(host, "memory");
  EXPECT_TRUE(memory["not_run"].get<bool>());
  EXPECT_EQ(memory["reason"].get<std::string>().rfind("not run: deadline (cut after ", 0), 0u);
  const auto& decode = *check(host, "decode");
  EXPECT_TRUE(decode["not_run"].get<bool>());
  EXPECT_EQ(decode["reason"], "not run: deadline");
}

TEST_F(HealthTest, WrongDecodeIsCritical) {
  const auto h = health("--device host", "GAUNTLET_TEST_FAULT=health.decode=wrong");
  EXPECT_LT(h.wall_s, 60.0);
  EXPECT_EQ(h.exit_code, 1) << h.first_line << "\n" << h.rest;
  EXPECT_EQ(h.first_line.rfind(
                "gauntlet: host decode wrong: greedy tokens differ from the host reference", 0),
            0u)
      << h.first_line;
}

// The fixture amdgpu cards (0000:c1:00.0, ...): no compute API sees them, their signals count.
class HealthSignalsTest : public HealthTest {
 protected:
  void SetUp() override {
    HealthTest::SetUp();
    fs::copy(fs::path(GAUNTLET_SOURCE_DIR) / "tests/signals/fixtures/amdgpu",
             state_->path() / "sys", fs::copy_options::recursive);
    env_ = "GAUNTLET_SYSFS_ROOT=" + (state_->path() / "sys").string();
  }
  std::string env_;
};

TEST_F(HealthSignalsTest, MovedErrorCounterSinceTheLastRunIsCritical) {
  const auto first = health("--device host --format json", env_);
  EXPECT_EQ(first.exit_code, 0) << first.first_line << "\n" << first.rest;
  const auto j = verdict(first);
  const core::Json* card = nullptr;
  for (const auto& d : j["devices"]) {
    if (d["bus_id"] == "0000:c1:00.0") card = &d;
  }
  ASSERT_NE(card, nullptr) << first.rest;
  EXPECT_TRUE((*check(*card, "signals.counters"))["not_run"].get<bool>());

  std::ofstream(state_->path() / "sys/class/drm/card0/device/ras/umc_err_count", std::ios::trunc)
      << "ue: 0\nce: 5\n";
  const auto second = health("--device host", env_);
  EXPECT_LT(second.wall_s, 60.0);
  EXPECT_EQ(second.exit_code, 1) << second.first_line;
  EXPECT_NE(second.first_line.find("card0 error counter moved since the last health run: "
                                   "ras.umc.ce +2"),
            std::string::npos)
      << second.first_line;
  // Seen once: the next run compares with the new counts.
  EXPECT_EQ(health("--device host", env_).exit_code, 0);
}

TEST_F(HealthSignalsTest, ResetLineNamingACardSinceTheLastRunIsCritical) {
  EXPECT_EQ(health("--device host", env_).exit_code, 0);
  std::ofstream(kmsg_, std::ios::app)
      << "4,2,2000,-;amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!\n";
  const auto h = health("--device host --format json", env_);
  EXPECT_LT(h.wall_s, 60.0);
  EXPECT_EQ(h.exit_code, 1) << h.first_line;
  EXPECT_NE(h.first_line.find("card0 reset_begin in the kernel log: amdgpu 0000:c1:00.0: amdgpu: "
                              "GPU reset begin!"),
            std::string::npos)
      << h.first_line;
  EXPECT_EQ(verdict(h)["status"], "critical");
}

// A real compute device: PoCL's OpenCL device, without a baseline (a warning that says so).
TEST_F(HealthTest, OpenClDeviceWithoutBaselineRunsEveryCheck) {
  fs::remove(state_->path() / "baseline.json");
  const auto h = health("--device opencl:0 --format json");
  EXPECT_LT(h.wall_s, 60.0);
  EXPECT_EQ(h.exit_code, 0) << h.first_line << "\n" << h.rest;
  EXPECT_NE(h.first_line.find("no baseline at " + (state_->path() / "baseline.json").string()),
            std::string::npos)
      << h.first_line;
  const auto j = verdict(h);
  const auto& device = j["devices"][0];
  EXPECT_EQ(device["device"], "opencl:0");
  EXPECT_EQ(device["status"], "pass") << device.dump();
  EXPECT_TRUE((*check(device, "decode"))["metrics"]["tokens_match"].get<bool>());
}

// node_exporter's textfile format, read by the Prometheus client's own parser (Debian's
// python3-prometheus-client, installed by ci/install-deps.sh).
TEST_F(HealthTest, PrometheusOutputParsesWithTheRealParser) {
  const auto out = state_->path() / "gauntlet.prom";
  const auto h = health("--device host --format prometheus --out " + out.string());
  EXPECT_LT(h.wall_s, 60.0);
  EXPECT_EQ(h.exit_code, 0) << h.first_line;
  EXPECT_EQ(h.first_line.rfind("gauntlet: ok (", 0), 0u) << h.first_line;
  const std::string text = read_text(out);
  EXPECT_EQ(text.rfind("# gauntlet: ok (", 0), 0u) << text;
  const auto script = state_->write(
      "parse.py",
      "import sys\n"
      "from prometheus_client.parser import text_string_to_metric_families as parse\n"
      "for f in parse(open(sys.argv[1]).read()):\n"
      "    for s in f.samples:\n"
      "        print(s.name, s.labels.get('device', ''), s.labels.get('check', ''), s.value)\n");
  const auto parsed = run_command("/usr/bin/python3 " + script.string() + " " + out.string());
  ASSERT_EQ(parsed.exit_code, 0) << parsed.output;
  EXPECT_NE(parsed.output.find("gauntlet_health_status   0.0"), std::string::npos) << parsed.output;
  EXPECT_NE(parsed.output.find("gauntlet_health_device_status host  0.0"), std::string::npos)
      << parsed.output;
  EXPECT_NE(parsed.output.find("gauntlet_health_check_status host decode 0.0"), std::string::npos)
      << parsed.output;
}

TEST_F(HealthTest, KubernetesObjectsCarryTheVerdict) {
  const auto taint = health("--device host --format device-taint --dra-driver gpu.example.com",
                            "GAUNTLET_TEST_FAULT=health.decode=wrong");
  EXPECT_LT(taint.wall_s, 60.0);
  EXPECT_EQ(taint.exit_code, 1);
  const auto list = core::Json::parse(taint.rest);
  ASSERT_EQ(list["items"].size(), 1u) << taint.rest;
  const auto& rule = list["items"][0];
  EXPECT_EQ(rule["apiVersion"], "resource.k8s.io/v1beta2");
  EXPECT_EQ(rule["kind"], "DeviceTaintRule");
  EXPECT_EQ(rule["spec"]["taint"]["effect"], "NoSchedule");
  EXPECT_EQ(rule["spec"]["deviceSelector"]["driver"], "gpu.example.com");
  EXPECT_EQ(rule["spec"]["deviceSelector"]["device"], "host");

  const auto condition = health("--device host --format node-condition");
  EXPECT_EQ(condition.exit_code, 0);
  const auto c = core::Json::parse(condition.rest);
  EXPECT_EQ(c["type"], "GauntletHealthProblem");
  EXPECT_EQ(c["status"], "False");
  EXPECT_EQ(c["reason"], "GauntletHealthy");
  EXPECT_EQ(c["message"], condition.first_line);
}

// The node-problem-detector plugin's own command line (its path replaced by the binary under
// test): one line of output, exit 0 on a pass, 1 (NPD's NonOK) on a wrong decode.
TEST_F(HealthTest, NodeProblemDetectorPluginGetsOneLineAndTheExitCode) {
  const auto config =
      core::Json::parse(read_text(fs::path(GAUNTLET_SOURCE_DIR) /
                                  "recipes/kubernetes/node-problem-detector/gauntlet-health.json"));
  ASSERT_EQ(config["rules"].size(), 1u);
  const auto& rule = config["rules"][0];
  EXPECT_EQ(rule["condition"], config["conditions"][0]["type"]);
  std::string args;
  for (const auto& a : rule["args"]) {
    if (a != "health") args += " " + a.get<std::string>();
  }
  const auto ok = health("--device host" + args);
  EXPECT_LT(ok.wall_s, 60.0);
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.rest, "");
  EXPECT_LE(ok.first_line.size(), config["pluginConfig"]["max_output_length"].get<size_t>());
  const auto bad = health("--device host" + args, "GAUNTLET_TEST_FAULT=health.decode=wrong");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.rest, "");
  EXPECT_EQ(bad.first_line.rfind("gauntlet: host decode wrong: ", 0), 0u) << bad.first_line;
}

TEST_F(HealthTest, ASimulatedRunWritesNoBaseline) {
  const auto state = state_->path() / "simulated";
  const auto r = run_command("GAUNTLET_STATE_DIR=" + state.string() + " GAUNTLET_CACHE_DIR=" +
                             (dir_->path() / "cache").string() + " " + gauntlet_exe() +
                             " run --quiet --device host --simulate arc-8g --shape " + kTinyShape +
                             " --out " + (state_->path() / "sim.json").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(state / "baseline.json"));
  EXPECT_NE(r.output.find("baseline not written: a --simulate run describes another device"),
            std::string::npos)
      << r.output;
}

// A driver that hangs while it enumerates: its child is cut within the deadline, and a hang is
// critical.
TEST_F(HealthTest, ADriverThatHangsEnumeratingIsCutAndCritical) {
  const auto h = health("--device host --deadline 12", "GAUNTLET_TEST_FAULT=probe.vulkan=hang");
  EXPECT_LT(h.wall_s, 20.0);
  EXPECT_EQ(h.exit_code, 1) << h.first_line;
  EXPECT_EQ(h.first_line.rfind("gauntlet: enumerate.vulkan timeout", 0), 0u) << h.first_line;
}

}  // namespace
}  // namespace gauntlet::testing
