#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench-health`: the daemon's health-check engine at scale. N=10000 tcp, then http,
# probes every second against a fake farm (farm.c: one epoll loop answering on 10,000
# loopback addresses), in a fresh network namespace when we may make one. Prints the
# daemon-side CPU as a share of one core, measured with getrusage over DURATION seconds.
# Target (issue 10): under 50%.
#   N=10000 DURATION=20 INTERVAL_MS=1000 selftests/bench/bench-health.sh
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/build/bench
N=${N:-10000}
DURATION=${DURATION:-20}
INTERVAL_MS=${INTERVAL_MS:-1000}
PORT=${PORT:-8080}
mkdir -p "$OUT"

if [ "${1:-}" != --in-netns ]; then
	make -s -C "$TOP/userland" -j2 lib
	PKGS="libmnl json-c libsodium libcyaml yaml-0.1 libcurl libmicrohttpd libsystemd"
	objs=$TOP/build/userland/libkmaglev.a
	# shellcheck disable=SC2046,SC2086
	gcc -O2 -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE -I"$TOP/uapi" \
		-I"$TOP/userland" -I"$TOP/userland/lib" -I"$TOP/kmod" $(pkg-config --cflags $PKGS) \
		-o "$OUT/health_bench" "$TOP/selftests/bench/health_bench.c" $objs \
		$(pkg-config --libs $PKGS) -lev -lm
	gcc -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -o "$OUT/farm" "$TOP/selftests/bench/farm.c"
	# a network namespace of our own: lo only, no one else's ports
	if unshare -n true 2>/dev/null; then
		exec unshare -n "$0" --in-netns
	fi
	echo "(no network namespace: running on this host's lo)"
fi
if [ "${1:-}" = --in-netns ]; then
	ip link set lo up
fi

ulimit -n "$(ulimit -Hn)"
rc=0
for kind in tcp http; do
	"$OUT/farm" "$PORT" "$kind" >/dev/null &
	farm=$!
	sleep 0.3
	"$OUT/health_bench" "$kind" "$N" "$PORT" "$DURATION" "$INTERVAL_MS" || rc=1
	kill "$farm"
	wait "$farm" 2>/dev/null || true
done
echo "target: under 50% of one core for $N backends checked every second"
exit $rc
