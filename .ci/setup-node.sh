#!/usr/bin/env bash
# Provisions the Node.js version in .node-version into .cache/node, as a CI setup-node step would:
# the binary comes from the npm registry's node-<platform>-<arch> package (the `node` package's payload),
# so no install script and no other download site is needed.
# Use: source .ci/setup-node.sh   (puts that Node first on PATH for the current shell)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
want="$(tr -d '[:space:]' < "$root/.node-version")"
prefix="$root/.cache/node"
bin="$prefix/node_modules/.bin"
if [ ! -x "$bin/node" ] || [ "$("$bin/node" --version)" != "v$want" ]; then
  platform="$(uname -s | tr '[:upper:]' '[:lower:]')"
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
  rm -rf "$prefix" && mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund "node-$platform-$arch@$want" >&2
  mkdir -p "$bin" && ln -sf "../node-$platform-$arch/bin/node" "$bin/node"
fi
export PATH="$bin:$PATH"
echo "node $(node --version) from $bin" >&2
