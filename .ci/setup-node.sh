#!/usr/bin/env bash
# Provisions the Node.js version in .node-version into .cache/node, as a CI setup-node step would:
# the binary comes from the npm registry's node-<platform>-<arch> package (the `node` package's payload),
# so no install script and no other download site is needed.
# Use: source .ci/setup-node.sh   (puts that Node first on PATH for the current shell)
#      bash .ci/setup-node.sh     (only installs it, and prints the folder to put on PATH)
#
# Sourced, this file runs in the caller's shell, which it must leave as it was but for PATH: a `set -e`
# left behind would close an interactive terminal at the next failing command. So the install runs as its
# own bash process with strict options (a subshell would not do: `set -e` is ignored inside a command
# substitution that an `if` or `||` tests, https://www.gnu.org/software/bash/manual/html_node/The-Set-Builtin.html).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
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
  echo "$bin"
elif kafka_lambda_node_bin="$(bash "${BASH_SOURCE[0]}")"; then
  export PATH="$kafka_lambda_node_bin:$PATH"
  echo "node $(node --version) from $kafka_lambda_node_bin" >&2
  unset kafka_lambda_node_bin
else
  unset kafka_lambda_node_bin
  echo "setup-node: installing Node.js failed; PATH is unchanged" >&2
  return 1
fi
