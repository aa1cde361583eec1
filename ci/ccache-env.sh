# Sourced by the CI scripts: every compile goes through ccache, with its cache inside the checkout
# (build/ccache) unless CCACHE_DIR says otherwise. The builds without a backend (ci-novulkan,
# ci-noopencl) use the ci build's flags, so they reuse its objects and compile only the files that
# include build_options.h or belong to a backend. The sloppiness lets ccache cache objects built
# with a precompiled header.
if command -v ccache >/dev/null; then
  export CCACHE_DIR=${CCACHE_DIR:-$PWD/build/ccache}
  export CCACHE_BASEDIR=$PWD
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
fi
