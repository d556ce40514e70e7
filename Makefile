# SPDX-License-Identifier: GPL-2.0
# kmaglev top-level Makefile.
#
#   make              build build/kmod/kmaglev.ko (against KDIR), build/kmaglev and build/kmaglevd
#   make KDIR=...     build the module against any prepared kernel tree (without it, and without
#                     the running kernel's headers, make stops and says which package to install)
#   make KERNEL=NAME  against one of the tests' kernels: stock, test, debug, deb612 (kernel.sh)
#   make C=1          also run sparse over the module
#   make check        the quick tier of the tests, before every commit: <= 15 min warm, 30 cold
#   make check-full   every test, before a release (Documentation/testing.rst)
#   make fuzz         the fuzzers, longer: libFuzzer targets 10 min each, 1M netlink messages
#                     and 1M packets on the debug kernel (selftests/fuzz.sh)
#   make demo         the load balancer, end to end, in a VM
#   make bench        the data path's cost per packet against plain forwarding and IPVS, on
#                     QEMU's instruction clock (6-10 min; Documentation/perf.rst)
#   make bench-quick  the same for a few cases, to iterate on one (CASES="ipip-ing new-ing", ~2 min)
#   make bench-insns  exact instructions per packet of each function for one case (CASE=ipip-ing,
#                     ~1 min): build/bench/insns-CASE.txt
#   make bench-table  Maglev table build benchmark
#   make bench-health health checks at scale, every kind (10,000 tcp/http/udp/dns probes a
#                     second), the daemon's CPU (~2.5 min)
#   make generate     regenerate the netlink uAPI/policy code from the YNL spec
#   make install      kmaglev.ko under /lib/modules/KVER/updates (then depmod), the CLI, its
#                     man page, completion and systemd unit (see Documentation/install.rst)
#   make uninstall    removes what install put there
#   make install-dkms the module's source in /usr/src/kmaglev-VERSION, registered with DKMS and
#                     built and installed for the running kernel (and each new one after)
#   make uninstall-dkms  dkms remove for every kernel, and the source
#   make deb          Debian packages kmaglev and kmaglev-dkms in build/deb/ (debian/), lintian

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
# Everything make makes goes here, nothing into the source folders: the programs, userland's
# objects (userland/Makefile), and the module, built from a tree of links to its sources
# (kbuild writes its objects beside what it compiles; external modules have no separate
# output folder before 6.13). The tests' per-kernel builds are in build/NAME (check.sh).
BUILD := $(TOP)/build
# The release, for DKMS's /usr/src/kmaglev-VERSION; the module and the CLI read it too.
VERSION := $(shell cat $(TOP)/VERSION)
# The kernel to build for: the running kernel's headers, or KDIR=DIR (any prepared tree), or
# KERNEL=NAME, one of the kernels the tests run (selftests/vm/kernel.sh: stock is Debian's
# installed kernel, test and debug the 6.12 kernels it builds and caches, deb612 Debian's
# prebuilt 6.12); KERNEL=test builds that kernel first if it is not cached (~10 min). Without
# the running kernel's headers and neither variable, `make` stops at once and says so (kmod-kdir).
RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
ifneq ($(KERNEL),)
KDIR ?= $(shell $(TOP)/selftests/vm/kernel.sh $(if $(filter stock,$(KERNEL)),stock-kdir,$(KERNEL)))
else
KDIR ?= $(if $(wildcard $(RUNNING_KDIR)/Makefile),$(RUNNING_KDIR))
endif
# The release of the kernel KDIR builds for, which install targets: its UTS_RELEASE, not
# `make kernelrelease` (Debian's headers answer 6.1.192 for 6.1.0-57-amd64).
KVER ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)

# Installation. DESTDIR (packaging) or INSTALL_MOD_PATH (kbuild's name) is a staging root;
# depmod then runs on that root (-b), as kbuild's modules_install does, and DEPMOD=: skips it
# (a package runs depmod in its postinst instead).
INSTALL_MOD_PATH ?= $(DESTDIR)
INSTALL_MOD_DIR := updates
DEPMOD ?= /sbin/depmod
# uninstall needs no kernel tree (the headers may be gone by then): the release given (KVER,
# or KDIR's), else the running kernel's, which is what install defaults to on an LB host.
ifneq ($(filter command environment,$(firstword $(origin KVER)) $(firstword $(origin KDIR))),)
UNINSTALL_KVER = $(KVER)
else
UNINSTALL_KVER = $(shell uname -r)
endif
MODDIR = $(INSTALL_MOD_PATH)/lib/modules/$(UNINSTALL_KVER)
USRSRC ?= /usr/src
DKMS ?= dkms

.PHONY: all kmod kmod-kdir kmod-links userland deb check check-full fuzz demo bench bench-quick bench-insns bench-table bench-health generate clean install \
	install-kmod install-kmod-check install-userland uninstall uninstall-kmod uninstall-userland install-dkms \
	install-dkms-src uninstall-dkms

# kmod-kdir first and alone: without a kernel to build against, nothing is built (with -j too)
all: kmod-kdir
	$(MAKE) kmod userland

# The module's tree of links: Kbuild, VERSION, kmod/ and uapi/ as they are in the source.
kmod-links:
	@mkdir -p $(BUILD)
	cp -rsf $(TOP)/Kbuild $(TOP)/VERSION $(TOP)/kmod $(TOP)/uapi $(BUILD)/

# Before anything is built: a KDIR to build against.
kmod-kdir:
	@if [ -z "$(KDIR)" ]; then \
		echo "make: no kernel headers for the running kernel ($$(uname -r)): no $(RUNNING_KDIR)" >&2; \
		echo "make: apt-get install linux-headers-$$(uname -r), or give the kernel tree to build" \
			"against: make KDIR=/path/to/kernel/build (KERNEL=stock|test|debug: the tests' kernels)" >&2; \
		exit 1; \
	elif [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "make: KDIR=$(KDIR) is no kernel tree (no Makefile there)" >&2; exit 1; \
	fi

kmod: kmod-kdir kmod-links
	$(MAKE) -C $(KDIR) M=$(BUILD) modules

userland:
	$(MAKE) -C $(TOP)/userland

check:
	$(TOP)/selftests/check.sh

check-full:
	$(TOP)/selftests/check.sh --full

fuzz:
	$(TOP)/selftests/fuzz.sh

demo:
	$(TOP)/selftests/demo.sh

bench:
	$(TOP)/selftests/bench/bench.sh

bench-quick:
	$(TOP)/selftests/bench/bench.sh --quick $(CASES)

bench-insns:
	$(TOP)/selftests/bench/bench.sh --insns $(or $(CASE),ipip-ing)

bench-table:
	$(TOP)/selftests/bench/bench-table.sh

bench-health:
	$(TOP)/selftests/bench/bench-health.sh

generate:
	$(TOP)/selftests/ynl.sh generate

install: install-kmod install-userland

# kmaglev.ko alone (KMAGLEV_ONLY=1: not the benchmark and test modules), by kbuild's
# modules_install, which signs and compresses it as the kernel's config says, to
# updates/kmod/kmaglev.ko: updates/ wins over the kernel's own tree and DKMS's updates/dkms/
# is left alone. KERNELRELEASE: Debian's headers would otherwise say 6.1.192.
# For the running kernel, or for the KDIR (or KERNEL) given; without either, and without the
# running kernel's headers, it stops. (A prerequisite, so that it runs before install-kmod's
# recipe expands KDIR.)
install-kmod-check:
	@if [ -z "$(filter command environment,$(firstword $(origin KDIR)) $(firstword $(origin KERNEL)))" ] && \
	    [ ! -f /lib/modules/$$(uname -r)/build/Makefile ]; then \
		echo "install: no headers for the running kernel at /lib/modules/$$(uname -r)/build:" \
			"apt-get install linux-headers-$$(uname -r), or give KDIR=" >&2; \
		exit 1; \
	fi

# Signed only if the tree holds its signing key (a self-built kernel's certs/signing_key.pem):
# Debian's headers have CONFIG_MODULE_SIG_ALL but no key, and sign-file would print SSL errors.
# (Secure Boot hosts: DKMS signs with its MOK key instead.)
SIGKEY = $(shell sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"/\1/p' $(KDIR)/.config 2>/dev/null)
NOSIGN = $(if $(filter pkcs11:%,$(SIGKEY)),,$(if $(wildcard $(KDIR)/$(SIGKEY) $(filter /%,$(SIGKEY))),,CONFIG_MODULE_SIG_ALL=))
install-kmod: install-kmod-check kmod-links
	@[ -n "$(KVER)" ] || { echo "install: no kernel release in $(KDIR) (set KDIR or KVER)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(BUILD) KMAGLEV_ONLY=1 modules
	$(MAKE) -C $(KDIR) M=$(BUILD) KMAGLEV_ONLY=1 KERNELRELEASE=$(KVER) $(NOSIGN) \
		INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
		DEPMOD=true modules_install
	$(DEPMOD) $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KVER)

install-userland:
	$(MAKE) -C $(TOP)/userland all install

# The service first (a running daemon keeps the binary), then the module's file and depmod. A
# loaded kmaglev.ko stays loaded (and forwarding) until `modprobe -r kmaglev` or a reboot.
uninstall: uninstall-userland uninstall-kmod

uninstall-kmod:
	@[ -n "$(UNINSTALL_KVER)" ] || { echo "uninstall: no kernel release (set KVER)" >&2; exit 1; }
	rm -f $(MODDIR)/$(INSTALL_MOD_DIR)/kmod/kmaglev.ko $(MODDIR)/$(INSTALL_MOD_DIR)/kmod/kmaglev.ko.gz \
		$(MODDIR)/$(INSTALL_MOD_DIR)/kmod/kmaglev.ko.xz $(MODDIR)/$(INSTALL_MOD_DIR)/kmod/kmaglev.ko.zst
	@for d in $(MODDIR)/$(INSTALL_MOD_DIR)/kmod $(MODDIR)/$(INSTALL_MOD_DIR); do \
		[ ! -d "$$d" ] || rmdir --ignore-fail-on-non-empty "$$d"; \
	done
	@if [ -d "$(MODDIR)" ]; then \
		echo "$(DEPMOD) $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(UNINSTALL_KVER)"; \
		$(DEPMOD) $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(UNINSTALL_KVER); \
	fi

uninstall-userland:
	$(MAKE) -C $(TOP)/userland uninstall

# DKMS: the module's source alone (what dkms.conf builds) as USRSRC/kmaglev-VERSION, then
# `dkms install`, which adds and builds it for the running kernel; AUTOINSTALL rebuilds it for
# each kernel installed later. Copying, not `dkms add .`: that would copy the whole tree.
DKMS_SRC := $(DESTDIR)$(USRSRC)/kmaglev-$(VERSION)
install-dkms-src:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)/kmod/tests $(DKMS_SRC)/uapi/linux
	install -m 0644 $(TOP)/dkms.conf $(TOP)/Kbuild $(TOP)/VERSION $(DKMS_SRC)/
	install -m 0644 $(TOP)/kmod/Kbuild $(TOP)/kmod/*.[ch] $(DKMS_SRC)/kmod/
	install -m 0644 $(TOP)/kmod/tests/*.[ch] $(DKMS_SRC)/kmod/tests/
	install -m 0644 $(TOP)/uapi/linux/*.h $(DKMS_SRC)/uapi/linux/
	rm -f $(DKMS_SRC)/kmod/*.mod.c

install-dkms: install-dkms-src
	$(DKMS) install kmaglev/$(VERSION)

uninstall-dkms:
	-$(DKMS) remove kmaglev/$(VERSION) --all
	rm -rf $(DESTDIR)$(USRSRC)/kmaglev-$(VERSION)

# Debian packages, kmaglev and kmaglev-dkms (debian/, Documentation/install.rst), built with
# dpkg-buildpackage from a copy of the sources in build/deb/kmaglev-VERSION (dh writes into
# debian/ and the packages beside the tree it builds): build/deb/*.deb, then lintian on them
# (an error fails the build). debian/changelog's release must be VERSION's.
DEB_DIR := $(BUILD)/deb
DEB_SRC := $(DEB_DIR)/kmaglev-$(VERSION)
DEB_FILES := Makefile Kbuild VERSION dkms.conf README.md debian kmod uapi userland Documentation
LINTIAN ?= lintian
# The userland tests are make check's; DEB_BUILD_OPTIONS= runs them in the build too
DEB_BUILD_OPTIONS ?= nocheck
deb:
	@v=$$(dpkg-parsechangelog -l $(TOP)/debian/changelog -SVersion) || exit 1; \
	if [ "$$v" != "$(VERSION)" ]; then \
		echo "deb: debian/changelog is at $$v, VERSION at $(VERSION): add a changelog entry" \
			"(dch -v $(VERSION))" >&2; \
		exit 1; \
	fi
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_SRC)
	tar -C $(TOP) -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude=modules.order --exclude=Module.symvers --exclude='*.a' \
		$(DEB_FILES) | tar -C $(DEB_SRC) -xf -
	cd $(DEB_SRC) && DEB_BUILD_OPTIONS="$(DEB_BUILD_OPTIONS)" dpkg-buildpackage -us -uc -b \
		$(if $(filter nocheck,$(DEB_BUILD_OPTIONS)),-Pnocheck) $(DEB_FLAGS)
	$(LINTIAN) --fail-on error --info $(DEB_DIR)/kmaglev_$(VERSION)_*.changes
	@ls -1 $(DEB_DIR)/*.deb

clean:
	$(MAKE) -C $(TOP)/userland clean
	rm -rf $(BUILD) $(TOP)/.vm
