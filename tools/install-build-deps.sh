#!/bin/sh
# Installs the system libraries the build links against, from Debian's
# packages, when run as root and they are missing: jansson (JSON and SARIF
# output, notebooks). Otherwise only says what is missing.
set -eu
need=""
[ -f /usr/include/jansson.h ] || need="$need libjansson-dev"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "install-build-deps: installing$need"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
else
	echo "install-build-deps: missing$need; install it (e.g. sudo apt-get install$need)" >&2
	exit 1
fi
