/* A stand-in for a driver library whose constructor crashes while being loaded. */
#include <signal.h>

__attribute__((constructor)) static void crash_on_load(void) { raise(SIGSEGV); }

void* clGetExtensionFunctionAddress(const char* name) {
  (void)name;
  return 0;
}
