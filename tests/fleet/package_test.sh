#!/usr/bin/env bash
# The Debian package: `cpack -G DEB` builds gauntlet_<version>_<arch>.deb from this build, lintian
# reports no error on it, its control fields name the runtime libraries and the drivers, and the
# binary extracted by `dpkg-deb -x` runs `--version` and `list` and finds its schemas and presets
# in the installed layout.
# usage: package_test.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
debs=("$work"/out/*.deb)
[ ${#debs[@]} -eq 1 ] || fail "expected one .deb, found: ${debs[*]}"
deb=${debs[0]}
version=$(dpkg-deb -f "$deb" Version)
arch=$(dpkg-deb -f "$deb" Architecture)
[ "$(basename "$deb")" = "gauntlet_${version}_${arch}.deb" ] || fail "file name $(basename "$deb")"
echo "package: $(basename "$deb")"
dpkg-deb -f "$deb" Depends Recommends Suggests
depends=$(dpkg-deb -f "$deb" Depends)
for lib in ocl-icd-libopencl1 libvulkan1 libdrm2; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
grep -q pocl-opencl-icd <<<"$(dpkg-deb -f "$deb" Recommends)" || fail "Recommends names no OpenCL driver"
grep -q mesa-vulkan-drivers <<<"$(dpkg-deb -f "$deb" Recommends)" || fail "Recommends names no Vulkan driver"

mkdir -p "$work/tmp"  # lintian leaves files in TMPDIR
TMPDIR=$work/tmp lintian --tag-display-limit 0 "$deb" >"$work/lintian.log" 2>&1 || true
echo "lintian:"
cat "$work/lintian.log"
if grep -q '^E:' "$work/lintian.log"; then fail "lintian reports errors"; fi

dpkg-deb -x "$deb" "$work/root"
root=$work/root
for file in usr/bin/gauntlet usr/share/gauntlet/schema/report.schema.json \
  usr/share/gauntlet/schema/fleet.schema.json usr/share/gauntlet/presets/arc-16g.json \
  usr/share/gauntlet/recipes/slurm-fleet.sh usr/share/man/man1/gauntlet.1.gz \
  usr/share/doc/gauntlet/copyright; do
  [ -e "$root/$file" ] || fail "the package lacks /$file"
done
zcat "$root/usr/share/man/man1/gauntlet.1.gz" | grep -q '^\.SH' || fail "the man page has no sections"

version_text=$("$root/usr/bin/gauntlet" --version)
echo "$version_text"
grep -qx "gauntlet $version (.*)" <<<"$(head -n 1 <<<"$version_text")" || fail "--version: first line"
grep -qx "data: $root/usr/share/gauntlet" <<<"$version_text" || fail "--version: not the installed data"
grep -qx "report schema: $root/usr/share/gauntlet/schema/report.schema.json (the one built in)" \
  <<<"$version_text" || fail "--version: report schema"
grep -qx "fleet schema: $root/usr/share/gauntlet/schema/fleet.schema.json (the one built in)" \
  <<<"$version_text" || fail "--version: fleet schema"
grep -q "^presets: arc-16g, arc-8g, gb10-128g, h100-80g, h200-141g, m2-32k-local, mali-3g-no-bf16, rtx-24g, strix-halo-128g " <<<"$version_text" || fail "--version: presets"

# A preset added to the installed folder works by name: this one is refused for its unknown key,
# which shows that `--simulate site-preset` found the installed file before any device work.
presets=$root/usr/share/gauntlet/presets
echo '{"name": "site-preset", "global_mem_size": 1073741824, "bogus": 1}' >"$presets/site-preset.json"
simulate=$("$root/usr/bin/gauntlet" run --simulate site-preset --device host --out "$work/r.json" 2>&1) &&
  fail "a preset with an unknown key was accepted"
grep -q "simulate file $presets/site-preset.json: unknown key 'bogus'" <<<"$simulate" ||
  fail "--simulate site-preset did not find the installed preset: $simulate"

list=$("$root/usr/bin/gauntlet" list) || fail "gauntlet list exited $?: $list"
echo "$list"
grep -q "host" <<<"$list" || fail "gauntlet list shows no host device"
echo "PASS"
