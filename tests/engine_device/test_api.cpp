// The API an engine_device executable tests (device_fixture.h): the one file compiled per
// executable.
#include "tests/engine_device/device_fixture.h"

namespace gauntlet::engine::test {

const char* test_api() { return GAUNTLET_TEST_API; }

}  // namespace gauntlet::engine::test
