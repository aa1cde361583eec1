#pragma once
// Helpers the case families share: rows, seeds, and the parameter block of the element-wise
// kernels.
#include <cstdint>
#include <string>

#include "conformance/registry.h"
#include "core/outcome.h"

namespace gauntlet::conformance {

struct EwParams {
  uint32_t n;
  uint32_t op;
  uint32_t k;
  uint32_t fault;
};

// The parameter block of the kernels in limits.cl (local memory and workgroup cases).
struct LimitsParams {
  uint32_t bytes;
  uint32_t seed;
  uint32_t n;
  uint32_t pad;
};

enum EwOp : uint32_t { op_copy = 0, op_add = 1, op_mul = 2, op_fma = 3, op_reduce = 4 };

// A seed per case and repetition, so that a failure names a seed that reproduces it alone.
uint64_t case_seed(const CaseContext& ctx, const std::string& id, unsigned repetition);

core::Row pass_row(const CaseContext& ctx, const std::string& id);
core::Row row_with(const CaseContext& ctx, const std::string& id, core::RowStatus status,
                   std::string reason);
// An API error becomes an error row; a guard overwrite (caught by run_kernel) becomes a fail.
core::Row error_row(const CaseContext& ctx, const std::string& id, const core::Error& error);

// 1 for "oob", 2 for "wrong", 0 otherwise (the test-only fault switch for this case id).
uint32_t fault_code(const CaseContext& ctx, const std::string& id);

}  // namespace gauntlet::conformance
