// gauntlet bench on the real drivers: the markdown table, JSON and CSV each hold one row per test
// (pp and tg) with the repetitions' tok/s, and bad input is a usage error that names the problem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/json.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

namespace fs = std::filesystem;

// Two prompt sizes and one generation length, 3 repetitions, passes of 16 tokens.
constexpr const char* kBenchArgs =
    " bench --shape test-gqa --format Q8_0 -p 16,32 -n 4 -r 3 -ub 16";
constexpr size_t kReps = 3;

struct ExpectedRow {
  std::string test;
  uint32_t n_prompt, n_gen;
};
const std::vector<ExpectedRow> kRows = {{"pp16", 16, 0}, {"pp32", 32, 0}, {"tg4", 0, 4}};

// run_command folds stderr into the output; a subshell keeps only one of them.
CommandResult stdout_of(const std::string& command) {
  return run_command("(" + command + " 2>/dev/null)");
}
CommandResult stderr_of(const std::string& command) {
  return run_command("(" + command + " 2>&1 >/dev/null)");
}

std::string bench_stdout(const std::string& device, const std::string& format) {
  auto r = stdout_of(gauntlet_exe() + kBenchArgs + " --device " + device + " -o " + format);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.output;
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == sep && !quoted) {
      out.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  out.push_back(field);
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class CliBench : public ::testing::TestWithParam<std::string> {};

TEST_P(CliBench, JsonHoldsEveryTestWithItsSamples) {
  const std::string device = GetParam();
  const auto j = core::Json::parse(bench_stdout(device, "json"));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), kRows.size());
  for (size_t i = 0; i < kRows.size(); ++i) {
    const auto& row = j[i];
    SCOPED_TRACE(kRows[i].test);
    EXPECT_EQ(row["test"], kRows[i].test);
    EXPECT_EQ(row["n_prompt"].get<uint32_t>(), kRows[i].n_prompt);
    EXPECT_EQ(row["n_gen"].get<uint32_t>(), kRows[i].n_gen);
    EXPECT_EQ(row["model"], "test-gqa Q8_0");
    EXPECT_EQ(row["device"], device);
    EXPECT_EQ(row["ubatch"].get<uint32_t>(), 16u);
    EXPECT_GT(row["size"].get<uint64_t>(), 0u);
    EXPECT_GT(row["params"].get<uint64_t>(), 0u);
    const auto samples = row["samples_ts"].get<std::vector<double>>();
    ASSERT_EQ(samples.size(), kReps);
    double sum = 0;
    for (double s : samples) {
      EXPECT_GT(s, 0.0);
      sum += s;
    }
    EXPECT_NEAR(row["avg_ts"].get<double>(), sum / kReps, 1e-9 * sum);
    EXPECT_GE(row["stddev_ts"].get<double>(), 0.0);
  }
}

TEST_P(CliBench, MarkdownIsLlamaBenchsTable) {
  const std::string device = GetParam();
  const auto text = lines(bench_stdout(device, "md"));
  ASSERT_EQ(text.size(), 2 + kRows.size());
  const std::vector<std::string> header = {"",       "model",  "size", "params", "backend",
                                           "device", "ubatch", "test", "t/s",    ""};
  auto cells = split(text[0], '|');
  for (auto& c : cells) c = trim(c);
  EXPECT_EQ(cells, header);
  EXPECT_EQ(text[1].rfind("| ---", 0), 0u) << text[1];
  const std::string backend = device == "host"                 ? "host"
                              : device.rfind("opencl", 0) == 0 ? "OpenCL"
                                                               : "Vulkan";
  for (size_t i = 0; i < kRows.size(); ++i) {
    cells = split(text[2 + i], '|');
    ASSERT_EQ(cells.size(), header.size()) << text[2 + i];
    for (auto& c : cells) c = trim(c);
    EXPECT_EQ(cells[1], "test-gqa Q8_0");
    EXPECT_EQ(cells[4], backend);
    EXPECT_EQ(cells[5], device);
    EXPECT_EQ(cells[6], "16");
    EXPECT_EQ(cells[7], kRows[i].test);
    double mean = 0, stddev = -1;
    ASSERT_EQ(std::sscanf(cells[8].c_str(), "%lf ± %lf", &mean, &stddev), 2) << cells[8];
    EXPECT_GT(mean, 0.0);
    EXPECT_GE(stddev, 0.0);
  }
}

TEST_P(CliBench, CsvHasAHeaderAndARowPerTest) {
  const std::string device = GetParam();
  const auto text = lines(bench_stdout(device, "csv"));
  ASSERT_EQ(text.size(), 1 + kRows.size());
  const auto header = split(text[0], ',');
  auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<size_t>(it - header.begin());
  };
  for (size_t i = 0; i < kRows.size(); ++i) {
    const auto f = split(text[1 + i], ',');
    ASSERT_EQ(f.size(), header.size()) << text[1 + i];
    EXPECT_EQ(f[column("test")], kRows[i].test);
    EXPECT_EQ(f[column("device")], device);
    EXPECT_EQ(std::stoul(f[column("n_prompt")]), kRows[i].n_prompt);
    EXPECT_EQ(std::stoul(f[column("n_gen")]), kRows[i].n_gen);
    EXPECT_GT(std::stod(f[column("avg_ts")]), 0.0);
    EXPECT_GE(std::stod(f[column("stddev_ts")]), 0.0);
    const auto samples = split(f[column("samples_ts")], ',');
    ASSERT_EQ(samples.size(), kReps);
    for (const auto& s : samples) EXPECT_GT(std::stod(s), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, CliBench, ::testing::Values("opencl:0", "vulkan:0", "host"),
                         [](const auto& info) {
                           std::string name = info.param;
                           name.erase(std::remove(name.begin(), name.end(), ':'), name.end());
                           return name;
                         });

TEST(CliBenchFlags, ProgressGoesToStderrAndTheTableToStdout) {
  const std::string command =
      gauntlet_exe() + " bench --shape test-tiny -p 8 -n 0 -r 2 --device host";
  auto out = stdout_of(command);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_EQ(out.output.find("gauntlet bench:"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("pp8"), std::string::npos) << out.output;
  EXPECT_EQ(out.output.find("tg"), std::string::npos) << out.output;  // -n 0 skips
  auto err = stderr_of(command);
  EXPECT_NE(err.output.find("gauntlet bench: pp8 warm-up"), std::string::npos) << err.output;
  EXPECT_NE(err.output.find("gauntlet bench: pp8 2/2: "), std::string::npos) << err.output;
  // The machine's signals while the tests ran: a clean run, with the hottest temperature where
  // the machine has a sensor (this VM has none).
  const std::regex signals_line(
      "gauntlet bench: signals during the tests: no throttling, error counter or kernel line; "
      "(no temperature sensor|hottest [0-9]+ °C)\n");
  EXPECT_TRUE(std::regex_search(err.output, signals_line)) << err.output;
}

// --hold: every test measured again after the device was held busy, beside the cold figure.
TEST(CliBenchFlags, HoldMeasuresEveryTestAgainAfterTheDeviceWasHeldBusy) {
  const std::string command =
      gauntlet_exe() + " bench --shape test-tiny -p 8 -n 8 -r 2 --device host --hold 1";
  auto table = stdout_of(command);
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find(" t/s |"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find(" t/s held |\n"), std::string::npos) << table.output;
  auto json = stdout_of(command + " -o json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto rows = core::Json::parse(json.output);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    EXPECT_EQ(row["held_samples_ts"].size(), 2u) << row.dump();
    EXPECT_GT(row["held_avg_ts"].get<double>(), 0.0);
  }
  auto err = stderr_of(command);
  EXPECT_NE(err.output.find("gauntlet bench: holding the device busy for 1 s"), std::string::npos)
      << err.output;
}

// -md: each tgN row is speculative decoding with its acceptance. A draft that is the model itself
// is accepted in full; a draft of another vocabulary is exit 2 naming both sizes.
TEST(CliBenchFlags, ADraftModelMakesTheTgRowsSpeculativeWithTheirAcceptance) {
  TempDir dir("bench-draft");
  const auto model = dir / "model.gguf", other = dir / "other.gguf";
  ASSERT_EQ(
      run_command(gauntlet_exe() + " model make --shape test-tiny -o " + model.string()).exit_code,
      0);
  ASSERT_EQ(run_command(gauntlet_exe() +
                        " model make --dims n_embd=64,n_layer=1,n_head=2,n_ff=128,n_vocab=300,"
                        "context=128 -o " +
                        other.string())
                .exit_code,
            0);
  auto json = stdout_of(gauntlet_exe() + " bench --model " + model.string() + " -md " +
                        model.string() + " -p 8 -n 8 -r 2 --device host --hold 1 -o json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto rows = core::Json::parse(json.output);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].contains("draft_acceptance")) << rows[0].dump();  // pp8
  EXPECT_EQ(rows[1]["test"], "tg8");
  EXPECT_EQ(rows[1]["draft_acceptance"], 1.0) << rows[1].dump();
  // Held busy, the tg row is measured again the same way: speculatively.
  EXPECT_EQ(rows[1]["held_samples_ts"].size(), 2u) << rows[1].dump();
  auto table = stdout_of(gauntlet_exe() + " bench --model " + model.string() + " -md " +
                         model.string() + " -p 0 -n 8 -r 1 --device host");
  EXPECT_NE(table.output.find("| draft accepted |"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("100.0 % |"), std::string::npos) << table.output;
  auto refused = run_command(gauntlet_exe() + " bench --model " + model.string() + " -md " +
                             other.string() + " -p 0 -n 8 -r 1 --device host 2>&1");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("the draft model's vocabulary (300 tokens) is not the target's "
                                "(256 tokens)"),
            std::string::npos)
      << refused.output;
}

TEST(CliBenchFlags, BadInputIsAUsageErrorNamingIt) {
  struct Case {
    std::string args, message;
  };
  const std::string host = "--device host -r 1 ";
  const std::vector<Case> cases = {
      {"--shape test-tiny --device opencl:99", "no such OpenCL device"},
      {"--shape test-tiny --device gpu0", "--device must be host, cpu, opencl:N or vulkan:N"},
      {host + "--shape no-such-shape", "unknown model shape 'no-such-shape'"},
      {host + "--shape test-tiny --format Q3_XL", "unknown --format 'Q3_XL'"},
      {host + "--shape test-tiny -p -5", "-p must be prompt sizes >= 0"},
      {host + "--shape test-tiny -n 1,x", "-n must be generation lengths >= 0"},
      {host + "--shape test-tiny -o xml", "-o must be md, json or csv, not 'xml'"},
      {"--device host --shape test-tiny -r 0", "-r must be at least 1"},
      {host + "--shape test-tiny -ub 0", "micro-batch (-ub) must be at least 1"},
      {host + "--shape test-tiny -ub", "--micro-batch: 1 required UINT missing"},
      {host + "--shape test-tiny --bogus", "argument was not expected: --bogus"},
      {host + "--shape test-tiny -p 0 -n 0", "nothing to run"},
      {host + "--shape test-tiny -p 4096",
       "a test of 4096 tokens is over the model's context of 128"},
      {host + "--model a.gguf --shape test-tiny", "give exactly one of --model and --shape"},
      {host + "--model /nonexistent/m.gguf", "/nonexistent/m.gguf"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    auto r = run_command(gauntlet_exe() + " bench " + c.args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
  }
}

TEST(CliBenchFlags, CorruptModelFileIsAUsageError) {
  const fs::path dir =
      fs::temp_directory_path() / ("gauntlet_cli_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path model = dir / "corrupt.gguf";
  {
    std::ofstream out(model, std::ios::binary);
    out << "GGUF this is not a model";
  }
  auto r = run_command(gauntlet_exe() + " bench --device host --model " + model.string());
  fs::remove_all(dir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("invalid GGUF file"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("t/s"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir));
}

TEST(CliBenchFlags, HelpListsTheFlags) {
  auto r = run_command(gauntlet_exe() + " bench --help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* flag : {"--model", "--shape", "--format", "--device", "-p", "-n", "-r",
                           "--micro-batch", "-ub", "-o"}) {
    EXPECT_NE(r.output.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace gauntlet::testing
