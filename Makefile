# SPDX-License-Identifier: GPL-2.0
# kmaglev top-level Makefile.
#
#   make              build kmod/kmaglev.ko (against KDIR) and userland/kmaglev
#   make KDIR=...     build the module against any prepared kernel tree
#   make C=1          also run sparse over the module
#   make check        the whole test suite (see README.md)
#   make demo         the load balancer, end to end, in a VM
#   make bench        packet-rate benchmark against plain forwarding and IPVS
#   make bench-table  Maglev table build benchmark
#   make bench-health health checks at scale: 10,000 tcp/http probes a second, daemon CPU
#   make generate     regenerate the netlink uAPI/policy code from the YNL spec

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
KVER := $(shell uname -r)
# A real LB host builds against its running kernel; elsewhere use the cached 6.12 test kernel.
KDIR ?= $(if $(wildcard /lib/modules/$(KVER)/build/Makefile),/lib/modules/$(KVER)/build,$(shell $(TOP)/selftests/vm/kernel.sh test))

.PHONY: all kmod userland check demo bench bench-table bench-health generate clean install

all: kmod userland

kmod:
	$(MAKE) -C $(KDIR) M=$(TOP) modules

userland:
	$(MAKE) -C $(TOP)/userland

check:
	$(TOP)/selftests/check.sh

demo:
	$(TOP)/selftests/demo.sh

bench:
	$(TOP)/selftests/bench/bench.sh

bench-table:
	$(TOP)/selftests/bench/bench-table.sh

bench-health:
	$(TOP)/selftests/bench/bench-health.sh

generate:
	$(TOP)/selftests/ynl.sh generate

install: all
	$(MAKE) -C $(KDIR) M=$(TOP) modules_install
	$(MAKE) -C $(TOP)/userland install

clean:
	$(MAKE) -C $(TOP)/userland clean
	find $(TOP)/kmod $(TOP) -maxdepth 2 \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name modules.order -o -name Module.symvers \) -delete
	rm -rf $(TOP)/.build $(TOP)/.vm
