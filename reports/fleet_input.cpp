#include "reports/fleet_input.h"

#include <simdjson.h>

#include <array>
#include <string_view>

namespace gauntlet::reports {

namespace {

namespace od = simdjson::ondemand;

// A field that is missing its type or value; caught in read() below and never thrown further.
struct Mismatch {
  std::string message;
};

template <typename T>
T need(simdjson::simdjson_result<T> result, const char* field) {
  T value{};
  if (auto error = std::move(result).get(value)) {
    throw Mismatch{std::string(field) + " " + simdjson::error_message(error)};
  }
  return value;
}

std::string text(od::value v, const char* field) {
  return std::string(need<std::string_view>(v.get_string(), field));
}

bool is_null(od::value v) {
  return need<od::json_type>(v.type(), "a value") == od::json_type::null;
}

// The top-level fields every report has (the schema's "required").
constexpr std::array<std::string_view, 12> kRequired{
    "schema_version", "tool",  "host",    "started",     "finished", "complete",
    "level",          "model", "options", "environment", "devices",  "summary"};

void read_view(od::object view, FleetDeviceInput& d) {
  auto& v = d.views.emplace_back();
  for (auto field : view) {
    const auto key = need<std::string_view>(field.unescaped_key(), "devices[].views[] key");
    if (key == "api") {
      v.api = text(field.value(), "devices[].views[].api");
    } else if (key == "usable") {
      v.usable = need<bool>(field.value().get_bool(), "devices[].views[].usable");
    } else if (key == "info") {
      for (auto info : need<od::object>(field.value().get_object(), "devices[].views[].info")) {
        const auto name = need<std::string_view>(info.unescaped_key(), "info key");
        if (name == "driver_version") {
          v.driver_version = text(info.value(), "devices[].views[].info.driver_version");
        } else if (name == "global_mem_size") {
          v.global_mem_size =
              need<uint64_t>(info.value().get_uint64(), "devices[].views[].info.global_mem_size");
        }
      }
    }
  }
}

void read_profile(od::object profile, FleetDeviceInput& d) {
  auto& p = d.profiles.emplace_back();
  for (auto field : profile) {
    const auto key = need<std::string_view>(field.unescaped_key(), "devices[].profiles[] key");
    if (key == "name") {
      p.name = text(field.value(), "devices[].profiles[].name");
    } else if (key == "reason") {
      p.reason = text(field.value(), "devices[].profiles[].reason");
    } else if (key == "verdict") {
      const auto verdict = text(field.value(), "devices[].profiles[].verdict");
      auto parsed = profile_verdict_from_string(verdict);
      if (!parsed) throw Mismatch{"devices[].profiles[].verdict \"" + verdict + "\" is not one"};
      p.verdict = *parsed;
    } else if (key == "figures") {
      for (auto f : need<od::object>(field.value().get_object(), "devices[].profiles[].figures")) {
        if (need<std::string_view>(f.unescaped_key(), "figures key") != "tok_s") continue;
        od::value v = f.value();
        if (!is_null(v))
          p.tok_s = need<double>(v.get_double(), "devices[].profiles[].figures.tok_s");
      }
    }
  }
}

// A soak that ran: its profile, steady speed and hottest temperature (a soak without samples,
// one that did not run, gives nothing to compare).
void read_soak(od::object soak, FleetDeviceInput& d) {
  std::string profile;
  std::optional<double> steady, hottest;
  bool sampled = false;
  for (auto field : soak) {
    const auto key = need<std::string_view>(field.unescaped_key(), "soak key");
    od::value v = field.value();
    if (key == "profile") {
      profile = text(v, "soak.profile");
    } else if (key == "steady_tok_s") {
      steady = need<double>(v.get_double(), "soak.steady_tok_s");
    } else if (key == "max_temperature_c") {
      hottest = need<double>(v.get_double(), "soak.max_temperature_c");
    } else if (key == "samples") {
      for (auto sample : need<od::array>(v.get_array(), "soak.samples")) {
        (void)sample;
        sampled = true;
      }
    }
  }
  if (!sampled) return;
  d.soak_profile = profile;
  d.steady_tok_s = steady;
  d.max_temperature_c = hottest;
}

void read_device(od::object device, FleetInput& in) {
  auto& d = in.devices.emplace_back();
  for (auto field : device) {
    const auto key = need<std::string_view>(field.unescaped_key(), "devices[] key");
    od::value v = field.value();
    if (key == "key") {
      d.key = text(v, "devices[].key");
    } else if (key == "name") {
      d.name = text(v, "devices[].name");
    } else if (key == "simulation") {
      for (auto s : need<od::object>(v.get_object(), "devices[].simulation")) {
        const auto name = need<std::string_view>(s.unescaped_key(), "simulation key");
        od::value sv = s.value();
        if (name == "simulated") d.simulated = need<bool>(sv.get_bool(), "simulation.simulated");
        if (name == "preset") d.preset = text(sv, "simulation.preset");
        if (name == "global_mem_bytes" && !is_null(sv)) {
          d.simulated_global_mem = need<uint64_t>(sv.get_uint64(), "simulation.global_mem_bytes");
        }
      }
    } else if (key == "views") {
      for (auto view : need<od::array>(v.get_array(), "devices[].views")) {
        read_view(need<od::object>(view.get_object(), "devices[].views[]"), d);
      }
    } else if (key == "stress" && !is_null(v)) {
      for (auto s : need<od::object>(v.get_object(), "devices[].stress")) {
        if (need<std::string_view>(s.unescaped_key(), "stress key") == "safe_budget_bytes") {
          d.budget_bytes = need<uint64_t>(s.value().get_uint64(), "stress.safe_budget_bytes");
        }
      }
    } else if (key == "recommendation" && !is_null(v)) {
      for (auto r : need<od::object>(v.get_object(), "devices[].recommendation")) {
        if (need<std::string_view>(r.unescaped_key(), "recommendation key") == "profile") {
          d.recommended = text(r.value(), "recommendation.profile");
        }
      }
    } else if (key == "profiles") {
      for (auto profile : need<od::array>(v.get_array(), "devices[].profiles")) {
        read_profile(need<od::object>(profile.get_object(), "devices[].profiles[]"), d);
      }
    } else if (key == "soak" && !is_null(v)) {
      read_soak(need<od::object>(v.get_object(), "devices[].soak"), d);
    }
  }
}

core::Result<FleetInput> read(const simdjson::padded_string& json, const std::string& what) {
  thread_local od::parser parser;
  FleetInput in;
  std::array<bool, kRequired.size()> seen{};
  try {
    od::document doc;
    if (auto error = parser.iterate(json).get(doc)) {
      return core::invalid_argument(what + ": " + std::string("is not valid JSON (") +
                                    simdjson::error_message(error) + ")");
    }
    od::object root;
    if (doc.get_object().get(root)) {
      return core::invalid_argument(what + ": is not a gauntlet report (not a JSON object)");
    }
    for (auto field : root) {
      const auto key = need<std::string_view>(field.unescaped_key(), "a key");
      for (size_t i = 0; i < kRequired.size(); ++i) seen[i] = seen[i] || key == kRequired[i];
      if (key == "schema_version") {
        const std::string version = text(field.value(), "schema_version");
        const std::string supported = kSchemaVersion;
        if (version.substr(0, version.find('.') + 1) !=
            supported.substr(0, supported.find('.') + 1)) {
          return core::invalid_argument(
              what + ": has schema_version \"" + version + "\"; this build reads " +
              supported.substr(0, supported.find('.')) + ".x (" + supported + ")");
        }
      } else if (key == "host") {
        for (auto h : need<od::object>(field.value().get_object(), "host")) {
          if (need<std::string_view>(h.unescaped_key(), "host key") == "hostname") {
            in.host = text(h.value(), "host.hostname");
          }
        }
      } else if (key == "devices") {
        for (auto device : need<od::array>(field.value().get_array(), "devices")) {
          read_device(need<od::object>(device.get_object(), "devices[]"), in);
        }
      }
    }
  } catch (const Mismatch& m) {
    return core::invalid_argument(
        what + ": does not match the report schema or is not valid JSON: " + m.message);
  }
  for (size_t i = 0; i < kRequired.size(); ++i) {
    if (!seen[i]) {
      return core::invalid_argument(what + ": is not a gauntlet report (no \"" +
                                    std::string(kRequired[i]) + "\")");
    }
  }
  return in;
}

}  // namespace

FleetInput fleet_input(const Report& report) {
  FleetInput in;
  in.host = report.host.hostname;
  for (const auto& d : report.devices) {
    FleetDeviceInput device;
    device.key = d.key;
    device.name = d.name;
    device.simulated = d.simulation.simulated;
    device.preset = d.simulation.preset;
    device.simulated_global_mem = d.simulation.global_mem_bytes;
    for (const auto& v : d.views) {
      device.views.push_back({v.api, v.usable, v.info.driver_version, v.info.global_mem_size});
    }
    if (d.stress) device.budget_bytes = d.stress->safe_budget_bytes;
    if (d.recommendation) device.recommended = d.recommendation->profile;
    for (const auto& p : d.profiles) {
      device.profiles.push_back({p.name, p.verdict, p.figures.tok_s, p.reason});
    }
    if (d.soak && !d.soak->samples.empty()) {
      device.soak_profile = d.soak->profile;
      device.steady_tok_s = d.soak->steady_tok_s;
      device.max_temperature_c = d.soak->max_temperature_c;
    }
    in.devices.push_back(std::move(device));
  }
  return in;
}

core::Result<FleetInput> parse_fleet_input(const std::string& text, const std::string& what) {
  return read(simdjson::padded_string(text), what);
}

core::Result<FleetInput> read_fleet_input(const std::filesystem::path& file) {
  simdjson::padded_string json;
  if (auto error = simdjson::padded_string::load(file.string()).get(json)) {
    return core::make_error(core::ErrorKind::not_found,
                            "cannot read " + file.string() + ": " + simdjson::error_message(error));
  }
  return read(json, file.string());
}

}  // namespace gauntlet::reports
