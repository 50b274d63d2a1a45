# SPDX-License-Identifier: GPL-2.0
# mlx5sp: out-of-tree build of the driver (mlx5sp.ko), the software ConnectX
# (mlx5sp_sim.ko) and, against a KUnit kernel, the KUnit suites.

ifneq ($(KERNELRELEASE),)
include $(src)/Kbuild
else

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
# The headers are looked up when a recipe first needs them, i.e. after
# `setup` has installed them: on a bare machine they are not there when
# this file is parsed. $(shell) rather than $(wildcard), whose directory
# cache can predate the install. KHEADERS names the candidates (the
# first-run check points it at a stand-in tree).
KHEADERS ?= /lib/modules/$$(uname -r)/build /usr/src/linux-headers-6.12*-amd64
STOCK_KDIR = $(shell ls -d $(KHEADERS) 2>/dev/null | head -n1)
KDIR ?= $(STOCK_KDIR)
SETUP ?= $(TOP)/scripts/setup
SRC := drivers/infiniband/hw/mlx5sp
INSTALL_MOD_DIR ?= updates
# Kernel module builds run one job per CPU (make test's build stage).
JOBS ?= $(shell nproc)

.PHONY: all kdir-check modules userspace userprogs bench setup debug-kernel debug-modules \
	check test kunit vm-test stock-test demo fuzz stress faults install install-userspace deb deb-test clean

all: modules

setup:
	@$(SETUP)

# Fails with a clear message when no kernel tree is found.
kdir-check: setup
	@test -n "$(KDIR)" && test -d "$(KDIR)" || \
		{ echo "mlx5sp: no kernel build tree (KDIR='$(KDIR)'): install linux-headers-6.12-amd64 (scripts/setup) or pass KDIR=" >&2; exit 1; }

modules: kdir-check
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 -j$(JOBS) modules

# libmlx5sp, its example and man page (userspace/), built in .build/userspace.
userspace: setup
	$(MAKE) -C $(TOP)/userspace BUILD=$(TOP)/.build/userspace

install-userspace: userspace
	$(MAKE) -C $(TOP)/userspace BUILD=$(TOP)/.build/userspace install

# Modules for the debug test kernel, built in their own output tree.
debug-kernel: setup
	@$(TOP)/tests/kernel/build

debug-modules: setup
	@$(TOP)/scripts/build-debug-modules

check: setup
	@$(TOP)/scripts/check

kunit: debug-modules
	@$(TOP)/tests/kunit/run

vm-test: debug-modules userprogs
	@$(TOP)/tests/integration/run --kernel debug

# stock/90-deb.sh installs the packages of make deb
stock-test: modules userprogs deb
	@$(TOP)/tests/integration/run --kernel stock

# The stages (build, deb, check, debug kernel, tests) are run and timed
# by tests/run-all.
test: setup
	@$(TOP)/tests/run-all

# Userspace programs (libibverbs + libmlx5 from Debian), built into .build/
# and run in the VMs: the bad-input and signature pipelining tests, the
# benchmarks, and libmlx5sp with its example (mlx5sp-read-target).
USER_CFLAGS := -O2 -g -Wall -Wextra -Werror
USER_PROGS := $(TOP)/.build/tests/bad_input $(TOP)/.build/tests/sig_pipeline \
	$(TOP)/.build/tests/last_send $(TOP)/.build/tests/cm_shutdown \
	$(TOP)/.build/tests/cm_sig_shutdown $(TOP)/.build/tests/pipe_heap \
	$(TOP)/.build/tests/devx_events $(TOP)/.build/tests/devx_async \
	$(TOP)/.build/tests/fuzz_verbs $(TOP)/.build/tests/isolation \
	$(TOP)/.build/tests/load $(TOP)/.build/tests/fail_nth \
	$(TOP)/.build/tests/limits \
	$(TOP)/.build/tests/wire_retry $(TOP)/.build/tests/peer_gone \
	$(TOP)/.build/tests/cm_stop $(TOP)/.build/tests/vfio_function \
	$(TOP)/.build/bench/mlx5sp-bench $(TOP)/.build/bench/mlx5sp-sigbench

userprogs: setup userspace $(USER_PROGS)

$(TOP)/.build/tests/bad_input: $(TOP)/tests/userspace/bad_input.c \
		$(TOP)/tests/userspace/check.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< -lmlx5 -libverbs

$(TOP)/.build/tests/sig_pipeline: $(TOP)/tests/userspace/sig_pipeline.c \
		$(TOP)/tests/userspace/check.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< -lmlx5 -libverbs

$(TOP)/.build/tests/last_send: $(TOP)/tests/userspace/last_send.c \
		$(TOP)/tests/userspace/check.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< -libverbs

$(TOP)/.build/tests/load: $(TOP)/tests/userspace/load.c \
		$(TOP)/tests/userspace/check.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< -libverbs

$(TOP)/.build/tests/wire_retry: $(TOP)/tests/userspace/wire_retry.c \
		$(TOP)/tests/userspace/check.h $(TOP)/tests/userspace/t10dif.h \
		$(TOP)/tests/userspace/roce.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< -lmlx5 -libverbs

$(TOP)/.build/tests/limits: $(TOP)/tests/userspace/limits.c \
		$(TOP)/tests/userspace/check.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< -libverbs

$(TOP)/.build/tests/cm_shutdown: $(TOP)/tests/userspace/cm_shutdown.c \
		$(TOP)/tests/userspace/check.h $(TOP)/tests/userspace/cm.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< -lrdmacm -libverbs

$(TOP)/.build/tests/vfio_function: $(TOP)/tests/userspace/vfio_function.c \
		$(TOP)/tests/userspace/check.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $<

$(TOP)/.build/tests/cm_stop: $(TOP)/tests/userspace/cm_stop.c \
		$(TOP)/tests/userspace/check.h $(TOP)/tests/userspace/cm.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< -lrdmacm -libverbs

$(TOP)/.build/tests/peer_gone: $(TOP)/tests/userspace/peer_gone.c \
		$(TOP)/tests/userspace/check.h $(TOP)/tests/userspace/roce.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< -libverbs

# libmlx5sp's signature pipelining, linked statically (the one of this tree).
$(TOP)/.build/tests/cm_sig_shutdown: $(TOP)/tests/userspace/cm_sig_shutdown.c \
		$(TOP)/tests/userspace/check.h $(TOP)/tests/userspace/cm.h \
		$(TOP)/tests/userspace/t10dif.h $(TOP)/userspace/lib/pipeline.c \
		$(TOP)/userspace/include/mlx5sp/pipeline.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I$(TOP)/userspace/include -o $@ $< \
		$(TOP)/userspace/lib/pipeline.c -lrdmacm -lmlx5 -libverbs

$(TOP)/.build/tests/pipe_heap: $(TOP)/tests/userspace/pipe_heap.c \
		$(TOP)/tests/userspace/check.h $(TOP)/tests/userspace/roce.h \
		$(TOP)/tests/userspace/t10dif.h $(TOP)/userspace/lib/pipeline.c \
		$(TOP)/userspace/include/mlx5sp/pipeline.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I$(TOP)/userspace/include -o $@ $< \
		$(TOP)/userspace/lib/pipeline.c -lmlx5 -libverbs

# DEVX commands use the kernel's PRM layouts (tests/userspace/prm.h).
MLX5_IFC = $(shell ls -d /usr/src/linux-headers-6.12*-common | sort -V | tail -n1)/include/linux/mlx5/mlx5_ifc.h

$(TOP)/.build/tests/devx_events: $(TOP)/tests/userspace/devx_events.c \
		$(TOP)/tests/userspace/prm.h $(TOP)/tests/userspace/check.h \
		$(TOP)/tests/userspace/devx_qp.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DMLX5_IFC='"$(MLX5_IFC)"' -o $@ $< -lmlx5 -libverbs

$(TOP)/.build/tests/isolation: $(TOP)/tests/userspace/isolation.c \
		$(TOP)/tests/userspace/prm.h $(TOP)/tests/userspace/check.h \
		$(TOP)/tests/userspace/devx_qp.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DMLX5_IFC='"$(MLX5_IFC)"' -o $@ $< -lmlx5 -libverbs

$(TOP)/.build/tests/devx_async: $(TOP)/tests/userspace/devx_async.c \
		$(TOP)/tests/userspace/prm.h $(TOP)/tests/userspace/check.h \
		$(TOP)/tests/userspace/devx_qp.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DMLX5_IFC='"$(MLX5_IFC)"' -o $@ $< -lmlx5 -libverbs -lpthread

$(TOP)/.build/tests/fuzz_verbs: $(TOP)/tests/userspace/fuzz_verbs.c \
		$(TOP)/tests/userspace/prm.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -DMLX5_IFC='"$(MLX5_IFC)"' -o $@ $< -lmlx5 -libverbs

$(TOP)/.build/tests/fail_nth: $(TOP)/tests/userspace/fail_nth.c \
		$(TOP)/tests/userspace/check.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< -lmlx5 -libverbs

$(TOP)/.build/bench/mlx5sp-bench: $(TOP)/bench/mlx5sp-bench.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< -libverbs

# the T10-DIF helpers of the tests (tests/userspace/t10dif.h)
$(TOP)/.build/bench/mlx5sp-sigbench: $(TOP)/bench/mlx5sp-sigbench.c \
		$(TOP)/tests/userspace/t10dif.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I$(TOP)/tests/userspace -o $@ $< -lmlx5 -libverbs

# rxe against a model device in one stock-kernel VM (scripts/bench).
bench: modules userprogs
	@$(TOP)/scripts/bench

# The uverbs/DEVX fuzzer's long form (scripts/fuzz): 10^6 seeded calls in
# one debug-kernel VM; FUZZ_ARGS go to scripts/fuzz (--seed N, --calls N,
# --kernel stock ...).
fuzz: debug-modules userprogs
	@$(TOP)/scripts/fuzz $(FUZZ_ARGS)

# Load and shutdown stress, the long form of 49-load and 45-last-send
# (scripts/stress): 16 processes x 4 contexts of RC and UD traffic for
# 120 s, CQ overruns, the devices removed and the modules unloaded under
# load, 200 runs of each shutdown, 1,000 client stops a topology, 30 runs
# of 56-wire-loss's stream and window; one debug-kernel VM, then one
# stock. STRESS_ARGS go to scripts/stress (--kernel debug, --procs N,
# --seconds S, --runs N, --stop-runs N, --wire-loss-runs N). On a busy
# host: scripts/busy-host -- make stress.
stress: modules debug-modules userprogs
	@$(TOP)/scripts/stress $(STRESS_ARGS)

# Allocation and command failure at every step, the long form of
# 48-fail-nth (scripts/faults): every create path, the device's bring-up
# (rdma link add) too, with its n-th allocation and n-th firmware command
# failing for every n, in one debug-kernel VM (the bring-up's 6600
# allocation sites at every 25th n, or every n of a range). FAULTS_ARGS go
# to scripts/faults (--results DIR, --link-stride S, --link-from N,
# --link-to M, --link-only).
faults: debug-modules userprogs
	@$(TOP)/scripts/faults $(FAULTS_ARGS)

# The guided tour in one stock-kernel VM (scripts/demo): the modules and
# libmlx5sp's example target (mlx5sp-read-target) are all it runs.
demo: modules userspace
	@$(TOP)/scripts/demo

# Installs the modules for the kernel KDIR belongs to, as DKMS does.
KRELEASE = $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
install: modules
	$(MAKE) -C $(KDIR) M=$(TOP) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) modules_install
	depmod -a $(KRELEASE)

# Debian packages (debian/: mlx5sp-dkms, libmlx5sp1, libmlx5sp-dev) into
# .build/deb, unsigned, checked by lintian (scripts/deb).
deb: setup
	@$(TOP)/scripts/deb

# The packages' full VM test: apt install with the DKMS build, modprobe,
# the example through pkg-config, purge (make test runs its short form).
deb-test: modules deb
	@$(TOP)/tests/vm/run --kernel stock --timeout 3600 -- \
		env MLX5SP_DEB_FULL=1 bash tests/integration/stock/90-deb.sh

clean:
	[ -z "$(KDIR)" ] || $(MAKE) -C $(KDIR) M=$(TOP) clean
	rm -rf $(TOP)/.build

endif
