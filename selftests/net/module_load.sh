#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmaglev.ko loads, registers its generic netlink family in every netns, and unloads cleanly.
source "$(dirname "$0")/lib.sh"

kmg_require_root
kmg_require_cmd genl insmod rmmod
ktap_print_header
ktap_set_plan 6

kmg_unload_module
ktap_test_result "module loads" kmg_load_module
ktap_test_result "family visible via genl ctrl" bash -c 'genl ctrl get name kmaglev | grep -q "Name: kmaglev"'
ktap_test_result "family visible via the CLI" "$KMAGLEV" family
kmg_netns_add ns
ktap_test_result "family visible in a new netns" ip netns exec "$ns" "$KMAGLEV" family
kmg_netns_cleanup
ktap_test_result "module unloads" kmg_unload_module
ktap_test_result "family gone after unload" bash -c '! genl ctrl get name kmaglev 2>/dev/null'
ktap_finished
