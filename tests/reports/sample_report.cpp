#include "tests/reports/sample_report.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

#include "tests/support/run_command.h"

namespace gauntlet::reports::testing {

namespace {

constexpr uint64_t kMiB = 1024ull * 1024ull;

core::Row row(std::string id, std::string device, core::RowStatus status, std::string reason = {},
              double duration = 0.01) {
  auto r = core::make_row(std::move(id), std::move(device), status, std::move(reason));
  r.duration_s = duration;
  return r;
}

Profile profile(const std::string& device, const std::string& api, const std::string& weight,
                const std::string& compute, const std::string& kv, KernelVariant variant,
                uint32_t context, ProfileVerdict verdict, std::string reason = {}) {
  Profile p;
  p.device = device;
  p.api = api;
  p.weight_format = weight;
  p.compute_precision = compute;
  p.kv_precision = kv;
  p.variant = std::move(variant);
  p.context = context;
  p.batch = 1;
  p.verdict = verdict;
  p.reason = std::move(reason);
  p.name = profile_name(p);
  p.familiar_name = familiar_name(weight, compute);
  return p;
}

KernelVariant variant(uint32_t workgroup, uint64_t chunk, uint64_t local_mem) {
  KernelVariant v;
  v.workgroup = workgroup;
  v.tile = {{"chunk", chunk}};
  v.local_mem_bytes = local_mem;
  v.name = "wg" + std::to_string(workgroup) + "-tile-chunk" + std::to_string(chunk);
  return v;
}

DeviceReport llvmpipe() {
  DeviceReport d;
  d.key = "vulkan:0";
  d.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
  DeviceView view;
  view.api = "vulkan";
  view.info.id = {core::Api::vulkan, 0};
  view.info.name = d.name;
  view.info.vendor = "Mesa";
  view.info.driver_name = "llvmpipe";
  view.info.global_mem_size = 2048 * kMiB;
  view.info.max_mem_alloc_size = 2048 * kMiB;
  view.info.local_mem_size = 32768;
  view.info.max_work_group_size = 1024;
  view.info.subgroup_sizes = {8};
  view.info.features.fp16_storage = true;
  view.info.features.fp16_arithmetic = true;
  d.views.push_back(view);
  const std::string dev = "vulkan:0";
  d.conformance = {row("conform.f16.add", dev, core::RowStatus::pass),
                   row("conform.bf16.add", dev, core::RowStatus::unsupported, "bf16 not claimed"),
                   row("conform.local_mem.32768", dev, core::RowStatus::pass),
                   row("conform.local_mem.41216", dev, core::RowStatus::pass,
                       "refused: 41216 > maxComputeSharedMemorySize 32768"),
                   row("conform.int8.dot", dev, core::RowStatus::fail,
                       "index 3: inputs 0x7f,0x80 expected -16256 actual 0 (seed 42)")};
  d.conformance[2].metrics = {{"bytes", 32768}};
  d.verified.features = {
      {"f16.arithmetic", {FeatureVerdict::verified, {"conform.f16.add"}}},
      {"bf16.arithmetic", {FeatureVerdict::unsupported, {"conform.bf16.add"}}},
      {"int8.dot", {FeatureVerdict::failed, {"conform.int8.dot"}}},
      {"f64.arithmetic", {FeatureVerdict::not_tested, {}}},
  };
  d.verified.local_mem_verified_bytes = 32768;
  d.verified.max_workgroup_verified = 1024;
  d.verified.subgroup_size_observed = 8;
  StressResult s;
  s.margin_bytes = 64 * kMiB;
  s.max_single_alloc_verified_bytes = 1024 * kMiB;
  s.safe_budget_bytes = 1536 * kMiB - s.margin_bytes;
  s.copy_bandwidth_gbps = 9.5;
  s.host_memcpy_gbps = 11.2;
  const std::array<double, 5> fractions{0.25, 0.5, 0.75, 0.9, 1.0};
  for (size_t i = 0; i < fractions.size(); ++i) {
    StressPoint p;
    p.step = static_cast<int>(i);
    p.fraction = fractions[i];
    p.bytes = static_cast<uint64_t>(fractions[i] * 2048.0) * kMiB;
    p.verified = i < 3;
    p.bandwidth_gbps = p.verified ? 9.5 - static_cast<double>(i) : 0.0;
    p.status = p.verified ? core::RowStatus::pass : core::RowStatus::crash;
    p.reason = p.verified ? "" : "child killed by SIGKILL (out of memory)";
    s.curve.push_back(p);
    s.rows.push_back(row("stress.step" + std::to_string(i), dev, p.status, p.reason, 0.5));
  }
  d.stress = s;
  core::ComputePeak peak;
  peak.f32_gflops = 123.4;
  peak.f16_reason = "not verified: f16.arithmetic unsupported (conform.f16.native)";
  peak.int8_gops = 45.6;
  peak.method = "8 independent 4-wide FMA chains per work-item";
  peak.seconds = 0.9;
  d.compute_peak = peak;

  auto safe = profile(dev, "vulkan", "q4_0", "f16", "f16", variant(64, 1024, 8704), 2048,
                      ProfileVerdict::safe);
  safe.figures.tok_s = 41.5;
  safe.figures.peak_bytes = 310 * kMiB;
  safe.figures.planned_peak_bytes = 300 * kMiB;
  safe.figures.logits_nmse = 2.1e-6;
  safe.figures.effective_gbps = 6.2;
  safe.figures.achieved_gflops = 30.85;
  safe.figures.fraction_of_f32_peak = core::ratio_to_peak(30.85, peak);
  safe.evidence = {"conform.f16.add", "conform.local_mem.32768"};
  safe.rows = {row("engine." + safe.name, dev, core::RowStatus::pass, "", 1.2)};
  auto safe2 = profile(dev, "vulkan", "q8_0", "f32", "f32", variant(64, 1024, 8704), 2048,
                       ProfileVerdict::safe);
  safe2.figures.tok_s = 28.0;
  safe2.figures.peak_bytes = 520 * kMiB;
  safe2.figures.planned_peak_bytes = 512 * kMiB;
  safe2.rows = {row("engine." + safe2.name, dev, core::RowStatus::pass, "", 1.4)};
  auto big_tile = profile(dev, "vulkan", "f32", "f32", "f32", variant(256, 10240, 41216), 2048,
                          ProfileVerdict::unsafe, "local memory 41216 > 32768");
  big_tile.figures.planned_peak_bytes = 1100 * kMiB;
  big_tile.evidence = {"conform.local_mem.41216"};
  big_tile.cause = Cause{"local_memory", "matvec", {{"need_bytes", 41216}, {"limit_bytes", 32768}}};
  auto small_tile = profile(dev, "vulkan", "f32", "f32", "f32", variant(64, 1024, 8704), 2048,
                            ProfileVerdict::safe);
  small_tile.figures.tok_s = 12.25;
  small_tile.figures.peak_bytes = 1090 * kMiB;
  auto too_big = profile(dev, "vulkan", "f16", "f16", "f16", variant(64, 1024, 8704), 32768,
                         ProfileVerdict::unsafe, "needs 2.1 GiB > budget 1.4 GiB");
  too_big.figures.planned_peak_bytes = 2150 * kMiB;
  auto derived = profile(dev, "vulkan", "q4_0", "f16", "f16", variant(64, 1024, 8704), 4096,
                         ProfileVerdict::derived, "planned, not run at quick level");
  derived.figures.planned_peak_bytes = 340 * kMiB;
  auto untested = profile(dev, "vulkan", "bf16", "f32", "f32", variant(64, 1024, 8704), 2048,
                          ProfileVerdict::untested, "level quick does not reach it");
  d.profiles = {safe, safe2, big_tile, small_tile, too_big, derived, untested};
  d.largest_safe_context = {{"q4_0", 2048, safe.name},
                            {"q8_0", 2048, safe2.name},
                            {"f32", 2048, small_tile.name},
                            {"f16", 0, ""}};
  d.recommendation = Recommendation{safe.name, "fastest safe profile: 41.5 tok/s"};
  return d;
}

DeviceReport pocl() {
  DeviceReport d;
  d.key = "opencl:0";
  d.name = "cpu-haswell-AMD EPYC 7B13";
  d.simulation.simulated = true;
  d.simulation.preset = "ci/presets/small-local-mem.json";
  d.simulation.local_mem_bytes = 32768;
  d.simulation.features_off = {"bf16"};
  DeviceView view;
  view.api = "opencl";
  view.info.id = {core::Api::opencl, 0};
  view.info.name = d.name;
  view.info.vendor = "GenuineIntel";
  view.info.driver_name = "PoCL 3.1";
  view.info.global_mem_size = 3600 * kMiB;
  view.info.max_mem_alloc_size = 1024 * kMiB;
  view.info.local_mem_size = 1024 * 1024;
  view.info.max_work_group_size = 4096;
  d.views.push_back(view);
  DeviceView drm;
  drm.api = "vulkan";
  drm.usable = false;
  drm.reason = "no Vulkan driver for this device";
  drm.info.id = {core::Api::vulkan, 1};
  drm.info.name = d.name;
  drm.info.usable = false;
  drm.info.unusable_reason = drm.reason;
  d.views.push_back(drm);
  const std::string dev = "opencl:0";
  d.conformance = {
      row("conform.f16.add", dev, core::RowStatus::unsupported, "cl_khr_fp16 not claimed"),
      row("conform.f16.storage", dev, core::RowStatus::pass),
      row("conform.f32.fma", dev, core::RowStatus::pass),
      row("conform.local_mem.1048576", dev, core::RowStatus::timeout, "no answer within 30 s"),
      row("conform.f64.add", dev, core::RowStatus::error,
          "clBuildProgram returned CL_BUILD_PROGRAM_FAILURE (-11) on opencl:0")};
  d.verified.features = {
      {"f16.arithmetic", {FeatureVerdict::unsupported, {"conform.f16.add"}}},
      {"f16.storage", {FeatureVerdict::emulated, {"conform.f16.storage"}}},
  };
  d.verified.local_mem_verified_bytes = 32768;
  d.verified.max_workgroup_verified = 4096;
  d.stress = std::nullopt;
  auto f16 = profile(dev, "opencl", "f16", "f16", "f16", variant(64, 1024, 8704), 2048,
                     ProfileVerdict::unsafe, "f16 unsupported");
  auto q8 = profile(dev, "opencl", "q8_0", "f32", "f32", variant(64, 1024, 8704), 2048,
                    ProfileVerdict::safe);
  q8.figures.tok_s = 18.0;
  q8.rows = {row("engine." + q8.name, dev, core::RowStatus::pass, "", 2.0)};
  auto crash = profile(dev, "opencl", "q4_0", "f32", "f32", variant(128, 2048, 16896), 2048,
                       ProfileVerdict::unsafe, "crash: child killed by SIGSEGV");
  crash.rows = {
      row("engine." + crash.name, dev, core::RowStatus::crash, "child killed by SIGSEGV", 0.3)};
  d.profiles = {f16, q8, crash};
  d.largest_safe_context = {{"q8_0", 2048, q8.name}};
  d.recommendation = Recommendation{q8.name, "the only safe profile"};
  return d;
}

}  // namespace

Report sample_report() {
  Report r;
  r.tool = {"gauntlet", "0.1.0", "c5bd99b0a1b2"};
  r.host = {"ci-runner-7", "Debian GNU/Linux 12 (bookworm)", "AMD EPYC 7B13", 8 * 1024 * kMiB};
  r.started = "2024-05-01T12:00:00Z";
  r.finished = "2024-05-01T12:01:30Z";
  r.complete = true;
  r.level = "quick";
  r.model = ModelInfo{"synthetic-tiny", "llama d=256 L=4 H=4 ff=688 vocab=1024", "f32", 3400000,
                      13600000,         {{"F32", {{"f32", 21, 13600000}}}}};
  r.options = {{"level", {"quick", "default"}},
               {"device", {"all", "environment GAUNTLET_DEVICE"}},
               {"simulate", {"ci/presets/small-local-mem.json", "flag"}}};
  r.environment = {row("doctor.opencl_icd", "", core::RowStatus::pass),
                   row("doctor.vulkan_loader", "", core::RowStatus::pass),
                   row("doctor.render_node", "", core::RowStatus::skipped, "no /dev/dri/renderD*")};
  r.devices = {llvmpipe(), pocl()};
  r.summary = compute_summary(r);
  return r;
}

std::filesystem::path test_dir(const std::string& name) {
  auto dir = gauntlet::testing::build_dir() / "test-output" / "reports" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

int run_command(const std::string& command, std::string* output) {
  std::string full = command + " 2>&1";
  FILE* pipe = ::popen(full.c_str(), "r");
  if (pipe == nullptr) return -1;
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    if (output != nullptr) output->append(buffer.data(), n);
  }
  int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int validate_with_jsonschema(const std::filesystem::path& report_path, std::string* output) {
  const std::string source = GAUNTLET_SOURCE_DIR;
  return run_command("python3 " + source + "/tests/reports/validate_schema.py " + source +
                         "/reports/schema/report.schema.json " + report_path.string(),
                     output);
}

}  // namespace gauntlet::reports::testing
