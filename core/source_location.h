#pragma once
// Where a call was written, as std::source_location gives it (file and line). Built from the
// compilers' builtins because clang 14, the fuzz preset's compiler, cannot compile libstdc++ 12's
// <source_location> (it lacks __builtin_source_location). A function takes it as its last
// parameter with the default `= GAUNTLET_HERE`, which names the caller's place.
namespace gauntlet::core {

struct SourceLocation {
  const char* file = "";
  unsigned line_number = 0;
  const char* file_name() const { return file; }
  unsigned line() const { return line_number; }
};

}  // namespace gauntlet::core

// In a default argument, the builtins give the place of the call that uses the default.
#define GAUNTLET_HERE \
  ::gauntlet::core::SourceLocation { __builtin_FILE(), __builtin_LINE() }
