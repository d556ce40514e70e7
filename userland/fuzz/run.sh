#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run each libFuzzer target fuzz/fuzz_NAME for SECONDS from a copy of fuzz/corpus/NAME (the
# committed seeds stay as they are), then print one summary line a target:
#
#   fuzz_NAME: S s, N runs (E/s), cov: C ft: F, corpus K: no crash
#
# libFuzzer's own output (ending in its "Done N runs in S second(s)" line) comes first. A crash,
# a sanitizer report, a leak or a timeout fails the target (the input is left in fuzz/, as
# crash-*, leak-*, timeout-*); every target runs, and the exit status is non-zero if any
# failed.
#
#   sh fuzz/run.sh SECONDS NAME...	(from userland/; `make fuzz` does this)
secs=$1
shift
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
rc=0
summary=
for t in "$@"; do
	cp -r "fuzz/corpus/$t" "$dir/$t" || exit 1
	"./fuzz/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix=fuzz/ \
		"$dir/$t" >"$dir/$t.log" 2>&1
	r=$?
	cat "$dir/$t.log"
	last=$(grep -E '^#[0-9]+[[:space:]].*cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$dir/$t.log" |
		tail -n 1 |
		sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+).*/cov: \1 ft: \2, corpus \3/')
	done=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$dir/$t.log" | tail -n 1 |
		sed -E 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\2 s, \1 runs/')
	eps=$(sed -n 's/^stat::average_exec_per_sec:[[:space:]]*//p' "$dir/$t.log" | tail -n 1)
	if [ "$r" = 0 ] && [ -n "$last" ] && [ -n "$done" ]; then
		line="$done ($eps/s), $last: no crash"
	else
		line="FAILED (exit $r; see the report above)"
		rc=1
	fi
	summary="$summary
fuzz_$t: $line"
done
echo "$summary" | sed 1d
exit $rc
