// TEMPORARY (replaced by ggml's encoders in the next commit): every iq encoder refuses.
#include "core/types/iq_encode.h"

#include <stdexcept>
#include <string>

namespace gauntlet::core::types::iq {

namespace {
[[noreturn]] void refuse(const char* type) {
  throw std::invalid_argument(std::string("encoding ") + type + " is not written yet");
}
}  // namespace

void encode_iq2_xxs(const float*, std::byte*, uint64_t, const float*) { refuse("iq2_xxs"); }
void encode_iq2_xs(const float*, std::byte*, uint64_t, const float*) { refuse("iq2_xs"); }
void encode_iq2_s(const float*, std::byte*, uint64_t, const float*) { refuse("iq2_s"); }
void encode_iq3_xxs(const float*, std::byte*, uint64_t, const float*) { refuse("iq3_xxs"); }
void encode_iq3_s(const float*, std::byte*, uint64_t, const float*) { refuse("iq3_s"); }
void encode_iq1_s(const float*, std::byte*, uint64_t, const float*) { refuse("iq1_s"); }
void encode_iq1_m(const float*, std::byte*, uint64_t, const float*) { refuse("iq1_m"); }

}  // namespace gauntlet::core::types::iq
