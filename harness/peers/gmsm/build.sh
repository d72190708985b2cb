#!/bin/sh
# Builds the gmsm peer (main.go, github.com/emmansun/gmsm as go.mod and go.sum pin it)
# into OUT (default <repo>/build/peers/gmsm), on a stock Debian 12.
#
#   harness/peers/gmsm/build.sh [OUT]      (make peer-gmsm runs it)
#
# gmsm v0.44.0 needs Go 1.25 (its go.mod says go 1.25.0); Debian 12 ships Go 1.19
# (golang-go, installed by `make deps`), which can neither build it nor switch
# toolchains itself (GOTOOLCHAIN came with Go 1.21).  So: a `go` on PATH (or $GO)
# that is new enough is used as it is; otherwise that older go fetches the Go
# toolchain as the Go module golang.org/toolchain@v0.0.1-go$GO_VERSION.linux-<arch>
# from the module proxy, checked against the checksum database as every module is
# (the same module GOTOOLCHAIN=auto fetches in Go 1.21 and later), into
# <OUT's folder>/go$GO_VERSION, and builds with that.  Everything it downloads
# stays under OUT's folder (module cache included, writable so that `make clean`
# removes it).
set -eu

GO_VERSION=1.25.14

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
out=${1:-$repo/build/peers/gmsm}
case $out in /*) ;; *) out=$PWD/$out ;; esac
work=$(dirname "$out")
mkdir -p "$work"
need=$(sed -n 's/^go \([0-9][0-9.]*\)$/\1/p' "$here/go.mod")

export GOMODCACHE="$work/gomodcache" GOFLAGS=-modcacherw GO111MODULE=on GOTOOLCHAIN=local
export GOPATH="$work/gopath" GOCACHE="$work/gocache"

# version_ok GO: GO runs and is at least go.mod's version
version_ok() {
  v=$("$1" env GOVERSION 2>/dev/null | sed 's/^go//') || return 1
  [ -n "$v" ] && [ "$(printf '%s\n%s\n' "$need" "$v" | sort -V | head -n1)" = "$need" ]
}

go=${GO:-$(command -v go || true)}
toolchain="$work/go$GO_VERSION"
if [ -n "$go" ] && version_ok "$go"; then
  :
elif version_ok "$toolchain/bin/go"; then
  go=$toolchain/bin/go
else
  if [ -z "$go" ]; then
    echo "gmsm peer: no go to fetch Go $GO_VERSION with: install golang-go (make deps does)" >&2
    exit 1
  fi
  case $(uname -m) in
    x86_64) arch=amd64 ;;
    aarch64) arch=arm64 ;;
    *) echo "gmsm peer: no Go toolchain module for $(uname -m)" >&2; exit 1 ;;
  esac
  module=golang.org/toolchain@v0.0.1-go$GO_VERSION.linux-$arch
  echo "gmsm peer: $("$go" version) is older than go $need (gmsm's go.mod): fetching $module"
  empty=$(mktemp -d)
  dir=$(cd "$empty" && "$go" mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  rmdir "$empty"
  [ -n "$dir" ] && [ -d "$dir/bin" ] || { echo "gmsm peer: downloading $module failed" >&2; exit 1; }
  rm -rf "$toolchain.tmp"
  cp -R "$dir" "$toolchain.tmp"
  # module zips keep no file modes: the commands are made executable again, as Go does
  chmod -R u+w "$toolchain.tmp"
  find "$toolchain.tmp/bin" "$toolchain.tmp/pkg/tool" -type f -exec chmod +x {} +
  rm -rf "$toolchain"
  mv "$toolchain.tmp" "$toolchain"
  go=$toolchain/bin/go
  version_ok "$go" || { echo "gmsm peer: $go does not run as go $need or later" >&2; exit 1; }
fi

cd "$here"
CGO_ENABLED=0 "$go" build -mod=readonly -trimpath -o "$out" .
echo "gmsm peer: $out built with $("$go" version)"
