#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run each libFuzzer target DIR/fuzz_NAME for SECONDS from a copy of fuzz/corpus/NAME (the
# committed seeds stay as they are), then print one summary line a target:
#
#   fuzz_NAME: S s, N runs (E/s), cov: C ft: F, corpus K: no crash
#
# and the same figures for the reliability report (Documentation/reliability.rst):
#
#   # reliability: libFuzzer fuzz_NAME (FILE) | N inputs | S s | ASan+UBSan: 0 reports |
#     cov C, ft F, pass					(one line)
#
# libFuzzer's own output (ending in its "Done N runs in S second(s)" line) comes first. A crash,
# a sanitizer report, a leak or a timeout fails the target (the input is left in DIR/, as
# crash-*, leak-*, timeout-*); every target runs, and the exit status is non-zero if any
# failed.
#
#   sh fuzz/run.sh DIR SECONDS NAME...	(from userland/, DIR holding the built fuzz_NAME;
#					`make fuzz` does this)
bin=$1
secs=$2
shift 2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
rc=0
summary=
rel=
what() {
	case $1 in
	bgp) echo userland/bgp/wire.c ;;
	parse) echo kmod/parse.c ;;
	maglev) echo kmod/maglev.c ;;
	*) echo "$1" ;;
	esac
}
for t in "$@"; do
	cp -r "fuzz/corpus/$t" "$dir/$t" || exit 1
	"$bin/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$bin/" \
		"$dir/$t" >"$dir/$t.log" 2>&1
	r=$?
	cat "$dir/$t.log"
	last=$(grep -E '^#[0-9]+[[:space:]].*cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$dir/$t.log" |
		tail -n 1 |
		sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+).*/cov: \1 ft: \2, corpus \3/')
	done=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$dir/$t.log" | tail -n 1 |
		sed -E 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\2 s, \1 runs/')
	eps=$(sed -n 's/^stat::average_exec_per_sec:[[:space:]]*//p' "$dir/$t.log" | tail -n 1)
	runs=$(sed -n 's/^stat::number_of_executed_units:[[:space:]]*//p' "$dir/$t.log" | tail -n 1)
	tsecs=$(echo "$done" | sed -n 's/^\([0-9]*\) s,.*/\1/p')
	cf=$(echo "$last" | sed -n 's/^cov: \([0-9]*\) ft: \([0-9]*\),.*/cov \1, ft \2/p')
	if [ "$r" = 0 ] && [ -n "$last" ] && [ -n "$done" ]; then
		line="$done ($eps/s), $last: no crash"
		result="ASan+UBSan: 0 reports | $cf, pass"
	else
		line="FAILED (exit $r; see the report above)"
		result="crash or sanitizer report (exit $r) | FAIL"
		rc=1
	fi
	summary="$summary
fuzz_$t: $line"
	rel="$rel
# reliability: libFuzzer fuzz_$t ($(what "$t")) | ${runs:-?} inputs | ${tsecs:-?} s | $result"
done
echo "$summary" | sed 1d
echo "$rel" | sed 1d
exit $rc
