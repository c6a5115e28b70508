#!/bin/sh
# Fetch the pinned third-party C sources listed in deps.lock (tree-sitter from
# the npm registry, jansson's release tarball from Debian's archive), verify
# each tarball against its recorded sha256, and unpack it under the
# destination folder (default build/deps). Nothing fetched here is ever
# committed.
set -eu
lock=${1:-deps.lock}
dest=${2:-build/deps}
mkdir -p "$dest/tarballs"
# npm, installed (as root) only when a tarball it fetches is missing: a
# checkout whose npm tarballs are all here already needs no npm.
need_npm() {
  command -v npm >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "fetch-deps: installing npm (needed to fetch the pinned tree-sitter sources)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
  else
    echo "fetch-deps: npm is needed to fetch the pinned tree-sitter sources (apt-get install npm)" >&2
    exit 1
  fi
}
debian=${TORCHLINT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# download URL FILE: curl, wget or Python, whichever is here.
download() {
  if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then wget -q -O "$2" "$1"
  else python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' "$1" "$2"
  fi
}
grep -v '^#' "$lock" | while read -r name version sum src; do
  [ -n "$name" ] || continue
  case $src in
  debian:*)
    tgz="$dest/tarballs/$name-$version.tar.gz"
    if [ ! -f "$tgz" ] || ! echo "$sum  $tgz" | sha256sum -c --status; then
      rm -f "$tgz"
      download "$debian/${src#debian:}" "$tgz" || {
        echo "fetch-deps: could not download $debian/${src#debian:}" >&2
        exit 1
      }
    fi
    if ! echo "$sum  $tgz" | sha256sum -c --status; then
      echo "fetch-deps: checksum mismatch for $name $version ($tgz)" >&2
      echo "fetch-deps: expected $sum, got $(sha256sum "$tgz" | cut -d' ' -f1)" >&2
      exit 1
    fi
    rm -rf "$dest/$name"
    mkdir -p "$dest/$name"
    tar xzf "$tgz" -C "$dest/$name"
    echo "fetch-deps: $name $version ok"
    continue
    ;;
  esac
  # npm names the tarball after the package, with '@scope/' turned into 'scope-'.
  base=$(printf '%s' "$name" | sed -e 's|^@||' -e 's|/|-|')
  short=${name##*/}
  tgz="$dest/tarballs/$base-$version.tgz"
  if [ ! -f "$tgz" ] || ! echo "$sum  $tgz" | sha256sum -c --status; then
    rm -f "$tgz"
    need_npm
    (cd "$dest/tarballs" && npm pack --silent "$name@$version" >/dev/null 2>npm-err.log) || {
      echo "fetch-deps: 'npm pack $name@$version' failed:" >&2
      cat "$dest/tarballs/npm-err.log" >&2
      exit 1
    }
  fi
  if ! echo "$sum  $tgz" | sha256sum -c --status; then
    echo "fetch-deps: checksum mismatch for $name@$version ($tgz)" >&2
    echo "fetch-deps: expected $sum, got $(sha256sum "$tgz" | cut -d' ' -f1)" >&2
    exit 1
  fi
  rm -rf "$dest/$short"
  mkdir -p "$dest/$short"
  tar xzf "$tgz" -C "$dest/$short"
  echo "fetch-deps: $name@$version ok"
done
touch "$dest/.stamp"
