#pragma once
// Where a call was written, as std::source_location gives it (file and line). Built from the
// compilers' builtins, as libstdc++'s std::experimental::source_location was, because clang 14,
// the fuzz preset's compiler, cannot compile libstdc++ 12's <source_location> (it lacks
// __builtin_source_location). A function takes `SourceLocation at = SourceLocation::current()`
// as its last parameter, which names its caller's place.
namespace gauntlet::core {

class SourceLocation {
 public:
  static constexpr SourceLocation current(const char* file = __builtin_FILE(),
                                          unsigned line = __builtin_LINE()) {
    SourceLocation at;
    at.file_ = file;
    at.line_ = line;
    return at;
  }
  constexpr const char* file_name() const { return file_; }
  constexpr unsigned line() const { return line_; }

 private:
  const char* file_ = "";
  unsigned line_ = 0;
};

}  // namespace gauntlet::core
