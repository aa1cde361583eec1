// gauntlet model shapes: the preset shapes with their published dimensions, parameter counts and
// the bytes of their weights in the file types teams deploy.
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/format.h"
#include "core/json.h"
#include "engine/model/shape.h"
#include "engine/planner/planner.h"

namespace gauntlet::cli {

namespace {

using engine::model::FileType;

// The i-quant mixes as made with an importance matrix (planner::weight_bytes).
constexpr FileType kShownFormats[] = {FileType::f16,    FileType::q8_0,   FileType::q6_K,
                                      FileType::q5_K_M, FileType::q4_K_M, FileType::q4_0,
                                      FileType::iq3_m,  FileType::q3_K_M, FileType::iq3_xxs,
                                      FileType::q2_K,   FileType::iq2_m};

std::string parameters_text(uint64_t n) {
  char text[32];
  if (n >= 1000000000ull) {
    std::snprintf(text, sizeof text, "%.2fB", static_cast<double>(n) / 1e9);
  } else {
    std::snprintf(text, sizeof text, "%.0fM", static_cast<double>(n) / 1e6);
  }
  return text;
}

int list_shapes(bool json) {
  core::OrderedJson out = core::OrderedJson::array();
  std::vector<std::vector<std::string>> table{{"SHAPE", "ARCH", "N_EMBD", "LAYERS", "HEADS/KV",
                                               "HEAD_DIM", "N_FF", "VOCAB", "CONTEXT", "ROPE_BASE",
                                               "TIED", "PARAMS", "ACTIVE", "EXPERTS"}};
  for (FileType f : kShownFormats) table[0].push_back(engine::model::to_string(f));
  for (const auto& name : engine::model::preset_names()) {
    const auto s = engine::model::preset_shape(name).value();
    const uint64_t params = engine::model::parameter_count(s);
    const uint64_t active = engine::model::active_parameter_count(s);
    const std::string experts =
        s.moe() ? std::to_string(s.n_expert_used) + "/" + std::to_string(s.n_expert) : "-";
    char base[32];
    std::snprintf(base, sizeof base, "%g", static_cast<double>(s.rope_freq_base));
    std::vector<std::string> row = {name,
                                    s.traits().name,
                                    std::to_string(s.n_embd),
                                    std::to_string(s.n_layer),
                                    std::to_string(s.n_head) + "/" + std::to_string(s.n_head_kv),
                                    std::to_string(s.head_dim()),
                                    std::to_string(s.n_ff),
                                    std::to_string(s.n_vocab),
                                    std::to_string(s.context),
                                    base,
                                    s.tied_output ? "yes" : "no",
                                    parameters_text(params),
                                    parameters_text(active),
                                    experts};
    core::OrderedJson bytes = core::OrderedJson::object();
    for (FileType f : kShownFormats) {
      const uint64_t b = engine::planner::weight_bytes(s, f);
      row.push_back(format_bytes(b));
      bytes[engine::model::to_string(f)] = b;
    }
    table.push_back(std::move(row));
    out.push_back({{"name", name},
                   {"architecture", s.traits().name},
                   {"n_embd", s.n_embd},
                   {"n_layer", s.n_layer},
                   {"n_head", s.n_head},
                   {"n_head_kv", s.n_head_kv},
                   {"head_dim", s.head_dim()},
                   {"n_ff", s.n_ff},
                   {"n_vocab", s.n_vocab},
                   {"context", s.context},
                   {"rope_freq_base", s.rope_freq_base},
                   {"rope_freqs", s.rope_freqs},
                   {"rms_eps", s.rms_eps},
                   {"tied_output", s.tied_output},
                   {"sliding_window", s.sliding_window},
                   {"parameters", params},
                   {"active_parameters", active},
                   {"n_expert", s.n_expert},
                   {"n_expert_used", s.n_expert_used},
                   {"n_ff_exp", s.moe() ? s.expert_ff() : 0},
                   {"weight_bytes", bytes}});
  }
  if (json) {
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << format_table(table);
  }
  return kExitOk;
}

}  // namespace

void add_model_shapes_command(CLI::App& model, CommandContext& context) {
  auto json = std::make_shared<bool>(false);
  auto* shapes = model.add_subcommand(
      "shapes", "The preset shapes: published dimensions, parameters, weight bytes per format");
  shapes->add_flag("--json", *json, "print JSON");
  shapes->callback([&context, json] { context.exit_code = list_shapes(*json); });
}

}  // namespace gauntlet::cli
