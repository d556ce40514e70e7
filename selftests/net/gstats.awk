# SPDX-License-Identifier: GPL-2.0
# `kmaglev stats` text output -> the netns-wide counters, "NAME VALUE" a line (the "global"
# block and its continuation lines). Used by the benchmark (awk: python is slow
# to start in the VMs).
$1 == "global" { g = 1; for (i = 2; i < NF; i += 2) print $i, $(i + 1); next }
g && /^  / { for (i = 1; i < NF; i += 2) print $i, $(i + 1); next }
{ g = 0 }
