#include <cmath>
#include <cstdio>

#include "reports/render.h"
#include "reports/text_util.h"

namespace gauntlet::reports {

namespace {

using detail::format_number;
using detail::xml_escape;

enum class CaseKind { passed, failure, error, skipped };

struct TestCase {
  std::string classname;
  std::string name;
  double time = 0.0;
  CaseKind kind = CaseKind::passed;
  std::string type;  // the row status or the profile verdict
  std::string message;
};

struct Suite {
  std::string name;
  std::vector<TestCase> cases;
};

CaseKind kind_of(core::RowStatus status) {
  switch (status) {
    case core::RowStatus::pass:
      return CaseKind::passed;
    case core::RowStatus::fail:
      return CaseKind::failure;
    case core::RowStatus::unsupported:
    case core::RowStatus::skipped:
      return CaseKind::skipped;
    case core::RowStatus::error:
    case core::RowStatus::timeout:
    case core::RowStatus::crash:
      return CaseKind::error;
  }
  return CaseKind::error;
}

CaseKind kind_of(ProfileVerdict verdict) {
  switch (verdict) {
    case ProfileVerdict::safe:
      return CaseKind::passed;
    case ProfileVerdict::unsafe:
      return CaseKind::failure;
    case ProfileVerdict::untested:
    case ProfileVerdict::derived:
      return CaseKind::skipped;
  }
  return CaseKind::error;
}

std::string class_part(const std::string& text) {
  std::string out;
  for (char c : text) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return out;
}

TestCase row_case(const std::string& classname, const core::Row& row) {
  return {classname, row.id, row.duration_s, kind_of(row.status), core::to_string(row.status),
          row.reason};
}

void add_rows(Suite& suite, const std::string& classname, const std::vector<core::Row>& rows) {
  for (const auto& row : rows) suite.cases.push_back(row_case(classname, row));
}

Suite device_suite(const DeviceReport& d) {
  Suite suite{d.key + " " + d.name, {}};
  const std::string base = "gauntlet." + class_part(d.key);
  add_rows(suite, base + ".conformance", d.conformance);
  if (d.stress) add_rows(suite, base + ".stress", d.stress->rows);
  add_rows(suite, base + ".signals", d.machine_rows);
  for (const auto& p : d.profiles) {
    double time = 0.0;
    for (const auto& row : p.rows) time += row.duration_s;
    std::string message = p.reason;
    if (p.verdict == ProfileVerdict::derived && message.empty()) message = "derived, not run";
    suite.cases.push_back(
        {base + ".profile", p.name, time, kind_of(p.verdict), to_string(p.verdict), message});
    add_rows(suite, base + ".profile_run", p.rows);
  }
  return suite;
}

int count(const Suite& s, CaseKind kind) {
  int n = 0;
  for (const auto& c : s.cases) n += c.kind == kind ? 1 : 0;
  return n;
}

// JUnit's time is a plain decimal number of seconds: no exponent.
std::string junit_seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6f", std::isfinite(seconds) && seconds > 0 ? seconds : 0.0);
  return text;
}

double total_time(const Suite& s) {
  double t = 0.0;
  for (const auto& c : s.cases) t += c.time;
  return t;
}

std::string attr(const char* name, const std::string& value) {
  return std::string(" ") + name + "=\"" + xml_escape(value) + "\"";
}

std::string case_xml(const TestCase& c) {
  std::string out = "    <testcase" + attr("classname", c.classname) + attr("name", c.name) +
                    attr("time", junit_seconds(c.time));
  const char* element = nullptr;
  switch (c.kind) {
    case CaseKind::passed:
      return out + "/>\n";
    case CaseKind::failure:
      element = "failure";
      break;
    case CaseKind::error:
      element = "error";
      break;
    case CaseKind::skipped:
      element = "skipped";
      break;
  }
  out += ">\n      <" + std::string(element) + attr("message", c.message);
  if (c.kind != CaseKind::skipped) out += attr("type", c.type);
  if (c.message.empty() || c.kind == CaseKind::skipped) {
    out += "/>\n";
  } else {
    out.append(">").append(xml_escape(c.message)).append("</").append(element).append(">\n");
  }
  return out + "    </testcase>\n";
}

}  // namespace

std::string render_junit(const Report& r) {
  std::vector<Suite> suites;
  Suite host{"host " + r.host.hostname, {}};
  add_rows(host, "gauntlet.host.environment", r.environment);
  add_rows(host, "gauntlet.host", r.rows);
  if (!host.cases.empty()) suites.push_back(std::move(host));
  for (const auto& d : r.devices) suites.push_back(device_suite(d));

  int tests = 0, failures = 0, errors = 0, skipped = 0;
  double time = 0.0;
  for (const auto& s : suites) {
    tests += static_cast<int>(s.cases.size());
    failures += count(s, CaseKind::failure);
    errors += count(s, CaseKind::error);
    skipped += count(s, CaseKind::skipped);
    time += total_time(s);
  }
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites" + attr("name", "gauntlet") +
      attr("tests", std::to_string(tests)) + attr("failures", std::to_string(failures)) +
      attr("errors", std::to_string(errors)) + attr("skipped", std::to_string(skipped)) +
      attr("time", junit_seconds(time)) + ">\n";
  for (size_t i = 0; i < suites.size(); ++i) {
    const auto& s = suites[i];
    out += "  <testsuite" + attr("name", s.name) + attr("id", std::to_string(i)) +
           attr("tests", std::to_string(s.cases.size())) +
           attr("failures", std::to_string(count(s, CaseKind::failure))) +
           attr("errors", std::to_string(count(s, CaseKind::error))) +
           attr("skipped", std::to_string(count(s, CaseKind::skipped))) +
           attr("time", junit_seconds(total_time(s))) + attr("hostname", r.host.hostname) +
           attr("timestamp", r.started.empty() ? "1970-01-01T00:00:00" : r.started.substr(0, 19)) +
           ">\n";
    for (const auto& c : s.cases) out += case_xml(c);
    out += "  </testsuite>\n";
  }
  return out + "</testsuites>\n";
}

}  // namespace gauntlet::reports
