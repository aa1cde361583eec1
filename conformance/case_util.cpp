#include "conformance/case_util.h"

namespace gauntlet::conformance {

uint64_t case_seed(const CaseContext& ctx, const std::string& id, unsigned repetition) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the id: stable across runs and machines
  for (char c : id) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return (ctx.seed ^ h) + repetition;
}

core::Row pass_row(const CaseContext& ctx, const std::string& id) {
  return core::make_row(id, ctx.device_name(), core::RowStatus::pass);
}

core::Row row_with(const CaseContext& ctx, const std::string& id, core::RowStatus status,
                   std::string reason) {
  return core::make_row(id, ctx.device_name(), status, std::move(reason));
}

core::Row error_row(const CaseContext& ctx, const std::string& id, const core::Error& error) {
  const bool guard = error.message.rfind("guard region", 0) == 0;
  return row_with(ctx, id, guard ? core::RowStatus::fail : core::RowStatus::error,
                  error.describe());
}

uint32_t fault_code(const CaseContext& ctx, const std::string& id) {
  const std::string f = ctx.fault(id);
  return f == "oob" ? 1u : f == "wrong" ? 2u : 0u;
}

}  // namespace gauntlet::conformance
