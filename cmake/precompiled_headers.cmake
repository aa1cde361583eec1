# Precompiled headers for the heaviest library headers: CLI11 (header-only in Debian), nlohmann/json
# and GoogleTest. Each costs seconds per file that includes it; on CI's 2 cores that was most of the
# build. GAUNTLET_PCH=OFF parses them in every file as before (ccache caches a file built with a
# precompiled header only when CCACHE_SLOPPINESS holds pch_defines,time_macros).
option(GAUNTLET_PCH "Precompile the heaviest library headers" ON)

# gauntlet_precompile(<target> <header>...): the target's own precompiled header.
function(gauntlet_precompile target)
  if(GAUNTLET_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()

# gauntlet_precompile_like(<target> <from>): the target reuses <from>'s precompiled header (their
# compile options must match, as the tests' do).
function(gauntlet_precompile_like target from)
  if(GAUNTLET_PCH)
    target_precompile_headers(${target} REUSE_FROM ${from})
  endif()
endfunction()
