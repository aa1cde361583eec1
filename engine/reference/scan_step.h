#pragma once
// One selective-scan step of one channel's state row, in the order of llama.cpp's CPU backend.
#include <cstdint>

namespace gauntlet::engine::reference {

// The state row `s` (d_state values) becomes s * decay + B * x_dt, and the result is s . C.
float scan_row(float* s, const float* b, const float* c, float decay, float x_dt, uint32_t d_state);

// The portable loop alone, which the vector forms must equal bit for bit (tests).
float scan_row_portable(float* s, const float* b, const float* c, float decay, float x_dt,
                        uint32_t d_state);

}  // namespace gauntlet::engine::reference
