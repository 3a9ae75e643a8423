# gpu-provision: NVIDIA GPUs for LXC and Proxmox VE containers.
VERSION    := 0.1.0
PREFIX     ?= /usr/local
SBINDIR    ?= $(PREFIX)/sbin
LIBEXECDIR ?= $(PREFIX)/libexec/gpu-provision
CONFDIR    ?= /etc/gpu-provision
DATADIR    ?= $(PREFIX)/share/gpu-provision
UNITDIR    ?= $(PREFIX)/lib/systemd/system
DESTDIR    ?=
BUILD      ?= build
V          ?= 0
ifeq ($(V),0)
Q          := @
endif

CC         ?= cc
PKGS       := lxc libkmod blkid inih json-c yaml-0.1 zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
HOOK_LIBS  := $(shell pkg-config --libs inih zlib json-c 2>/dev/null)

WARN       := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	      -Wvla -Wwrite-strings
HARDEN     := -D_FORTIFY_SOURCE=2 -fstack-protector-strong
ifeq ($(WERROR),1)
WARN       += -Werror
endif
OPT        ?= -O2 -g
BASE_CFLAGS := -std=gnu11 $(OPT) $(WARN) $(HARDEN) -D_GNU_SOURCE -MMD -MP -Ilib -Iprovision -I. \
	       -DGP_VERSION='"$(VERSION)"' -DGP_CONFDIR='"$(CONFDIR)"' \
	       -DGP_LIBEXECDIR='"$(LIBEXECDIR)"' -DGP_SBINDIR='"$(SBINDIR)"' $(PKG_CFLAGS)
BASE_LDFLAGS := -Wl,-z,relro,-z,now
ALL_CFLAGS  = $(BASE_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(BASE_LDFLAGS) $(LDFLAGS)

# lib/ is one folder a layer, lowest first (lib/README.md): a file may include headers of its
# own layer and those before it, and the hook's layers only each other (tools/check-layers.sh).
LAYERS      := base host config plan start driver diagnose check cluster ops
HOOK_LAYERS := base host config plan start
LIB_SRC  := $(foreach l,$(LAYERS),$(wildcard lib/$(l)/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
PROV_SRC := $(wildcard provision/*.c)
PROV_OBJ := $(PROV_SRC:%.c=$(BUILD)/%.o)
HOOK_OBJ := $(BUILD)/hooks/gpu-hook.o
UNIT_SRC := $(wildcard tests/unit/test-*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
UNIT_CFLAGS = -Itests/unit

BINS := $(BUILD)/gpu-provision $(BUILD)/gpu-hook $(BUILD)/gpu-probe

.PHONY: all gpu-tools tests-helpers check-slow check-nested check-cluster bench-cluster fuzz docs valgrind install uninstall clean deps check unit integration demo bench format format-check asan

all: $(BINS)
all: man

# The install paths are compiled in: a make with another PREFIX (or VERSION, CONFDIR...)
# must rebuild, so the objects depend on a file that changes when they do.
PATHS_SEEN := $(VERSION) $(CONFDIR) $(LIBEXECDIR) $(SBINDIR)
$(BUILD)/paths.seen: FORCE
	@mkdir -p $(dir $@)
	@[ "$$(cat $@ 2>/dev/null)" = "$(PATHS_SEEN)" ] || echo "$(PATHS_SEEN)" >$@
.PHONY: FORCE
FORCE:

$(BUILD)/%.o: %.c $(BUILD)/paths.seen | pkg-check
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The layers' rule, before anything of lib/ is archived: a file including a header of a
# layer above its own, or a hook file one outside the hook's layers, fails the build.
$(BUILD)/layers.ok: tools/check-layers.sh $(wildcard lib/*/*.[ch] hooks/*.c)
	@mkdir -p $(dir $@)
	$(Q)tools/check-layers.sh includes "$(LAYERS)" "$(HOOK_LAYERS)"
	@touch $@

# Made anew each time: ar keeps members it is not given, so a renamed or deleted source's
# old object would stay in the archive and could be linked instead of the new one.
$(BUILD)/libgp.a: $(BUILD)/layers.ok $(LIB_OBJ)
	$(Q)rm -f $@ && $(AR) rcs $@ $(filter %.o,$^)

$(BUILD)/gpu-provision: $(PROV_OBJ) $(BUILD)/libgp.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

# The hook runs as root at every start, in an environment LXC hands down: linked
# statically (position independent) it loads no shared object, so LD_PRELOAD and
# LD_LIBRARY_PATH cannot put code into it, and it starts faster.
# It links only the objects of the hook's layers (their own archive), inih, zlib and json-c: the
# hook calling anything else of lib/ (liblxc, libkmod, libblkid behind it) fails the
# link, and a file of those layers including a header of another fails the build first.
HOOK_LIB_SRC := $(foreach l,$(HOOK_LAYERS),$(wildcard lib/$(l)/*.c))
HOOK_LIB_OBJ := $(HOOK_LIB_SRC:%.c=$(BUILD)/%.o)
$(BUILD)/libgp-hook.a: $(BUILD)/layers.ok $(HOOK_LIB_OBJ)
	$(Q)rm -f $@ && $(AR) rcs $@ $(filter %.o,$^)

HOOK_STATIC ?= -static-pie
$(BUILD)/gpu-hook: $(HOOK_OBJ) $(BUILD)/libgp-hook.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(HOOK_STATIC) -o $@ $^ $(HOOK_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libgp.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(UNIT_CFLAGS) $(ALL_LDFLAGS) $(UNIT_LDFLAGS) -DFIXTURES='"$(CURDIR)/tests/fixtures"' -o $@ $^ \
		$(PKG_LIBS) $(shell pkg-config --libs cmocka 2>/dev/null)

# The probe runs inside containers on their own C library, as old as glibc 2.28: its own
# _start (no __libc_start_main@GLIBC_2.34), no libraries of ours, no newer symbol versions
# whichever glibc builds it (tools/check-probe-glibc.sh fails the build on one). It is
# always built plain, without the sanitizers of make asan: it runs inside containers, on
# their C library alone.
$(BUILD)/gpu-probe: $(wildcard probe/*.c probe/*.h) tools/check-probe-glibc.sh
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -D_FORTIFY_SOURCE=2 -fstack-protector-strong \
		-nostartfiles -Wl,-z,relro,-z,now -o $@.tmp $(filter %.c,$^) -Wl,--no-as-needed -l:libdl.so.2
	$(Q)tools/check-probe-glibc.sh $@.tmp
	$(Q)mv $@.tmp $@

# The test double of libcuda.so.1 (tests/fakecuda/libcuda.c), under two version names.
FAKECUDA := $(BUILD)/tests/fakecuda
$(FAKECUDA)/.stamp: tests/fakecuda/libcuda.c tests/fakecuda/fake-cuda.h
	@mkdir -p $(FAKECUDA)
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -fPIC -shared -Wl,-soname,libcuda.so.1 -o $(FAKECUDA)/libcuda.so $<
	$(Q)touch $@

tests-helpers: $(FAKECUDA)/.stamp

# Variants of the double (tests/fakecuda/<name>.c includes libcuda.c and changes one
# behaviour), for docs/promises.md's tests: dstate.so hangs cuInit in state D.
FAKECUDA_VARIANTS := $(patsubst tests/fakecuda/%.c,$(FAKECUDA)/%.so,\
		     $(filter-out tests/fakecuda/libcuda.c,$(wildcard tests/fakecuda/*.c)))
$(FAKECUDA)/%.so: tests/fakecuda/%.c tests/fakecuda/libcuda.c tests/fakecuda/fake-cuda.h
	@mkdir -p $(FAKECUDA)
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -D_GNU_SOURCE -fPIC -shared -Wl,-soname,libcuda.so.1 -o $@ $<

tests-helpers: $(FAKECUDA_VARIANTS)

# Test doubles of the rest of a driver's user space (tests/fakedriver), each lib<name>.so
# with the soname lib<name>.so.1: libnvidia-ml for the injection tests (with an nvidia-smi
# that loads it by its soname) and gpu-probe --deep, libnvcuvid, libnvidia-encode and the
# Vulkan loader libvulkan for --deep.
FAKEDRIVER := $(BUILD)/tests/fakedriver
FAKEDRIVER_LIBS := $(patsubst %,$(FAKEDRIVER)/lib%.so,nvidia-ml nvcuvid nvidia-encode vulkan)
$(FAKEDRIVER)/lib%.so: tests/fakedriver/lib%.c tests/fakecuda/fake-cuda.h probe/nvenc.h
	@mkdir -p $(FAKEDRIVER)
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -fPIC -shared -Wl,-soname,lib$*.so.1 -o $@ $<
$(FAKEDRIVER)/nvidia-smi: tests/fakedriver/nvidia-smi.c
	@mkdir -p $(FAKEDRIVER)
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -D_GNU_SOURCE -nostartfiles -o $@ $< -Wl,--no-as-needed -l:libdl.so.2

# The same double under a graphics soname, for the graphics and display capabilities.
$(FAKEDRIVER)/libGLX_nvidia.so: tests/fakedriver/libnvidia-ml.c tests/fakecuda/fake-cuda.h
	@mkdir -p $(FAKEDRIVER)
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -fPIC -shared -Wl,-soname,libGLX_nvidia.so.0 -o $@ $<

tests-helpers: $(FAKEDRIVER_LIBS) $(FAKEDRIVER)/nvidia-smi $(FAKEDRIVER)/libGLX_nvidia.so

# Hostile stand-ins for a container's libcuda.so.1 (tests/hostile): the double plus one attack.
HOSTILE     := $(BUILD)/tests/hostile
HOSTILE_SO  := $(patsubst tests/hostile/%.c,$(HOSTILE)/%.so,\
	       $(filter-out tests/hostile/log.c,$(wildcard tests/hostile/*.c)))
$(HOSTILE)/%.so: tests/hostile/%.c tests/hostile/log.c tests/hostile/hostile.h \
		 tests/fakecuda/libcuda.c tests/fakecuda/fake-cuda.h
	@mkdir -p $(HOSTILE)
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -D_GNU_SOURCE -fPIC -shared -Wl,-soname,libcuda.so.1 \
		-o $@ $< tests/hostile/log.c tests/fakecuda/libcuda.c

tests-helpers: $(HOSTILE_SO)

# The same attacks alone, to preload into a probe whose real libcuda answers (GPU host run).
$(HOSTILE)/preload-%.so: tests/hostile/%.c tests/hostile/log.c tests/hostile/hostile.h
	@mkdir -p $(HOSTILE)
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -D_GNU_SOURCE -fPIC -shared -o $@ $< tests/hostile/log.c

# Config edits under the owners' locks (t-edits.sh): a liblxc lock holder
# (tests/helpers) and a rename() test double preloaded for faults between writes
# (tests/faults); test-ini swaps a file under a read by path.
EDIT_HELPERS := $(BUILD)/tests/helpers/lxc-lock-edit $(BUILD)/tests/faults/rename-fault.so \
		$(BUILD)/tests/helpers/bind-socket
$(BUILD)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -D_GNU_SOURCE -o $@ $<
$(BUILD)/tests/faults/%.so: tests/faults/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -D_GNU_SOURCE -fPIC -shared -o $@ $< -ldl

tests-helpers: $(EDIT_HELPERS)

# make bench: the hook's moments timed directly, beside a static no-op.
tests-helpers: $(BUILD)/tests/helpers/spawn-pair

# A FUSE server whose mount never answers a lookup: a container's own stalled mount
# (t-stall.sh, test-rootfsread).
STALLFS := $(BUILD)/tests/helpers/stallfs
tests-helpers: $(STALLFS)
$(BUILD)/tests/test-ini: UNIT_LDFLAGS = -Wl,--wrap=gp_read_file

# libFuzzer targets (clang): make fuzz runs each for FUZZ_SECONDS from its corpus.
FUZZ_TARGETS := pveconf probe ini procfs ldcache
FUZZ_SECONDS ?= 30
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	      -D_GNU_SOURCE -Ilib -I. $(PKG_CFLAGS)
$(BUILD)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(LIB_SRC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)clang $(FUZZ_FLAGS) -o $@ $< $(LIB_SRC) $(PKG_LIBS)

fuzz: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz-%)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(BUILD)/fuzz/corpus-$$t; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
		$(BUILD)/fuzz/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -max_len=16384 \
			-artifact_prefix=$(BUILD)/fuzz/$$t- -print_final_stats=1 \
			$(BUILD)/fuzz/corpus-$$t tests/fuzz/corpus/$$t >$(BUILD)/fuzz/$$t.log 2>&1 || \
			{ grep -E 'ERROR|SUMMARY|Test unit written' $(BUILD)/fuzz/$$t.log; exit 1; }; \
		grep 'stat::number_of_executed_units' $(BUILD)/fuzz/$$t.log; \
	done

# What the GPU host run needs besides the binaries (tests/gpu/run-h200.sh).
gpu-tools: all $(BUILD)/cuinit $(BUILD)/procmask $(HOSTILE)/preload-tiocsti.so \
	   $(HOSTILE)/preload-holder.so

$(BUILD)/cuinit: tests/gpu/cuinit.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< -ldl

$(BUILD)/procmask: tests/gpu/procmask.c $(BUILD)/libgp-hook.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -static-pie -o $@ $^ $(HOOK_LIBS)

# A modules tree for libkmod tests (tests/fixtures/kmod-conf/README.md).
KMOD_TREE := $(BUILD)/tests/kmod-tree
KMOD_REL  := 6.8.12-9-pve
KMOD_DIR  := $(KMOD_TREE)/lib/modules/$(KMOD_REL)/updates/dkms
$(KMOD_TREE)/.stamp: tests/kmod/fake-module.c $(wildcard tests/fixtures/kmod-conf/etc/modprobe.d/*)
	$(Q)rm -rf $(KMOD_TREE) && mkdir -p $(KMOD_DIR)
	$(Q)for m in nvidia nvidia_uvm nvidia_modeset; do \
		$(CC) -c -DMODNAME=$$m -o $(KMOD_DIR)/$$(echo $$m | tr _ -).ko $< || exit 1; done
	$(Q)cp -r tests/fixtures/kmod-conf/etc $(KMOD_TREE)/
	$(Q)/sbin/depmod -b $(KMOD_TREE) $(KMOD_REL) 2>/dev/null
	$(Q)touch $@

$(BUILD)/tests/test-modules: $(KMOD_TREE)/.stamp
$(BUILD)/tests/test-modules: UNIT_CFLAGS += -DKMOD_TREE='"$(CURDIR)/$(KMOD_TREE)"' \
	-DKMOD_REL='"$(KMOD_REL)"'
# The test double of the host's ldconfig is static, as glibc's own is.
LDCONFIG_REPORT := $(BUILD)/tests/helpers/ldconfig-report
$(LDCONFIG_REPORT): tests/helpers/ldconfig-report.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -D_GNU_SOURCE -static -o $@ $<
$(BUILD)/tests/test-ldconfig: | $(LDCONFIG_REPORT)
$(BUILD)/tests/test-ldconfig: UNIT_CFLAGS += -DHELPERS='"$(CURDIR)/$(BUILD)/tests/helpers"'
$(BUILD)/tests/test-rootfsread: | $(STALLFS)
$(BUILD)/tests/test-rootfsread: UNIT_CFLAGS += -DHELPERS='"$(CURDIR)/$(BUILD)/tests/helpers"'
$(BUILD)/tests/test-rootfsread: UNIT_LDFLAGS = -Wl,--wrap=gp_userspace_scan_rootfs
$(BUILD)/tests/test-checkdriver: | $(FAKECUDA)/.stamp
$(BUILD)/tests/test-checkdriver: UNIT_CFLAGS += -DFAKECUDA='"$(CURDIR)/$(FAKECUDA)/libcuda.so"'
$(BUILD)/tests/test-hook: UNIT_LDFLAGS = -Wl,--wrap=mknod -Wl,--wrap=fchownat
$(BUILD)/tests/test-uvmapply: UNIT_LDFLAGS = -Wl,--wrap=gp_module_insert -Wl,--wrap=gp_module_remove

subst_paths = sed -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' -e 's|@CONFDIR@|$(CONFDIR)|g' \
	-e 's|@DATADIR@|$(DATADIR)|g' -e 's|@SBINDIR@|$(SBINDIR)|g' $(1)

install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(CONFDIR) \
		$(DESTDIR)$(DATADIR)
	install -m 0755 $(BUILD)/gpu-provision $(DESTDIR)$(SBINDIR)/gpu-provision
	install -m 0755 $(BUILD)/gpu-hook $(DESTDIR)$(LIBEXECDIR)/gpu-hook
	install -m 0755 $(BUILD)/gpu-probe $(DESTDIR)$(LIBEXECDIR)/gpu-probe
	install -m 0644 conf/example.ini $(DESTDIR)$(DATADIR)/example.ini
	test -e $(DESTDIR)$(CONFDIR)/gpu-provision.conf || install -m 0644 \
		conf/gpu-provision.conf $(DESTDIR)$(CONFDIR)/gpu-provision.conf
	$(call subst_paths,templates/lxc-gpu.conf.in) >$(DESTDIR)$(DATADIR)/lxc-gpu.conf
	$(call subst_paths,templates/pve-hookscript.sh.in) >$(DESTDIR)$(DATADIR)/pve-hookscript.sh
	chmod 0755 $(DESTDIR)$(DATADIR)/pve-hookscript.sh
	install -d $(DESTDIR)$(UNITDIR)
	$(call subst_paths,templates/gpu-provision-prepare.service.in) \
		>$(DESTDIR)$(UNITDIR)/gpu-provision-prepare.service
	$(call subst_paths,templates/gpu-provision-check.service.in) \
		>$(DESTDIR)$(UNITDIR)/gpu-provision-check.service
	$(call subst_paths,templates/gpu-provision-check.timer.in) \
		>$(DESTDIR)$(UNITDIR)/gpu-provision-check.timer
	install -m 0644 conf/gpu-provision.rules.yml $(DESTDIR)$(DATADIR)/gpu-provision.rules.yml
	install -d $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(BASHCOMPDIR)
	install -m 0644 $(filter %.8,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 $(filter %.5,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 completion/gpu-provision $(DESTDIR)$(BASHCOMPDIR)/gpu-provision

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/gpu-provision $(DESTDIR)$(LIBEXECDIR)/gpu-hook \
		$(DESTDIR)$(LIBEXECDIR)/gpu-probe \
		$(DESTDIR)$(DATADIR)/example.ini $(DESTDIR)$(DATADIR)/lxc-gpu.conf \
		$(DESTDIR)$(DATADIR)/pve-hookscript.sh \
		$(DESTDIR)$(UNITDIR)/gpu-provision-prepare.service
	rm -f $(DESTDIR)$(UNITDIR)/gpu-provision-check.service \
		$(DESTDIR)$(UNITDIR)/gpu-provision-check.timer $(DESTDIR)$(DATADIR)/gpu-provision.rules.yml
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(filter %.8,$(MAN_PAGES)))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(filter %.5,$(MAN_PAGES)))) \
		$(DESTDIR)$(BASHCOMPDIR)/gpu-provision
	cmp -s conf/gpu-provision.conf $(DESTDIR)$(CONFDIR)/gpu-provision.conf && \
		rm -f $(DESTDIR)$(CONFDIR)/gpu-provision.conf || true
	rmdir --ignore-fail-on-non-empty $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(CONFDIR) 2>/dev/null || true

# The Debian package (debian/, debhelper), built from a copy of the tree in $(BUILD)/deb,
# where the .deb lands; debian/control must list tools/packages' build and run roles.
# deb-check builds it on each of DEB_SUITES, runs that release's lintian, and installs,
# upgrades, removes and purges it in a clean chroot of that release (as root).
DEB_SUITES ?= bookworm trixie
.PHONY: deb deb-check
deb:
	@tools/deps.sh build pkg
	@tools/check-debian-deps.sh
	@tools/deb-build.sh $(BUILD)/deb

deb-check:
	@tools/deps.sh build pkg
	@tools/check-debian-deps.sh
	@tools/deb-check.sh $(BUILD)/deb $(DEB_SUITES)

deps:
	@tools/deps.sh

# Man pages, one scdoc source each (man/NAME.SECTION.scd), and the bash completion
# (completion/gpu-provision); tests/integration/t-docs.sh holds them to the code's tables.
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
MAN_PAGES   := $(patsubst man/%.scd,$(BUILD)/man/%,$(wildcard man/*.scd))
.PHONY: man
man: $(MAN_PAGES)
$(BUILD)/man/%: man/%.scd
	@mkdir -p $(dir $@)
	@command -v scdoc >/dev/null || { echo "gpu-provision: scdoc is missing: run sudo make deps" >&2; exit 1; }
	$(Q)scdoc <$< >$@.tmp && mv $@.tmp $@

# Compiling without the build packages says what to do instead of failing at the link.
.PHONY: pkg-check
pkg-check:
	@pkg-config --exists $(PKGS) 2>/dev/null || { echo "gpu-provision: the build packages \
	are missing (pkg-config $(PKGS)): run sudo make deps" >&2; exit 1; }

# The layers' whole rule (lib/README.md): includes, no circle of files, true headers.
.PHONY: layers mutants-apply
layers:
	@tools/check-layers.sh all "$(LAYERS)" "$(HOOK_LAYERS)"

# A mutant that no longer applies guards nothing: said at every make unit, not only by make mutants.
mutants-apply:
	@tools/mutants.sh --applies

# attach, detach, adopt and the hook's moments need no root: run again as nobody to hold it.
UNIT_NO_ROOT := $(BUILD)/tests/test-attach $(BUILD)/tests/test-hook
unit: $(UNIT_BIN) layers mutants-apply
	@tools/run-unit.sh $(UNIT_BIN)
	@tools/run-unit.sh --as nobody $(UNIT_NO_ROOT)

integration: all tests-helpers
	@tests/integration/run.sh

check: deps
	$(MAKE) all unit
	$(MAKE) integration

# The README's commands on the platforms .ci/run leaves out (docs/platforms.md), each in a
# fresh tree of its Debian release and cgroup layout (tools/platform.sh).
PLATFORMS ?= bookworm:v2 trixie:hybrid sid:v2
.PHONY: check-platforms
check-platforms:
	@tools/deps.sh pkg
	@tools/check-platforms.sh $(BUILD)/platforms $(PLATFORMS)

# Slower: a debootstrapped Debian 11 container (glibc 2.31) for the probe.
check-slow: deps
	$(MAKE) all tests-helpers
	@tests/slow/old-glibc.sh

# Slower: Podman (Debian 12) and Docker (Debian 13) nested in real LXC containers, through
# the CDI spec of the start (debootstrapped trees, cached).
check-nested: deps
	$(MAKE) all tests-helpers
	@tests/slow/nested.sh

# Slower: the cluster suite (tests/cluster/) on Proxmox VE's real cluster filesystem, three
# nodes of pmxcfs and corosync in namespaces of their own. The kit builds pmxcfs from
# Proxmox's source (build-pmxcfs.sh OUTDIR, kept in $(BUILD)/pmxcfs) and runs the nodes
# (cluster.sh); without it the target fails, saying so.
PVE_CLUSTER_KIT ?= ../shared/pve-cluster
check-cluster: deps
	@if [ ! -x "$(PVE_CLUSTER_KIT)/build-pmxcfs.sh" ] || [ ! -x "$(PVE_CLUSTER_KIT)/cluster.sh" ]; then \
		echo "check-cluster: no cluster kit in PVE_CLUSTER_KIT=$(PVE_CLUSTER_KIT): it needs" \
		     "build-pmxcfs.sh OUTDIR (builds Proxmox VE's pmxcfs) and cluster.sh" \
		     "start|run|stop-corosync|stop (runs its nodes); see HACKING.md" >&2; \
		exit 1; \
	fi
	$(MAKE) all tests-helpers $(BUILD)/pmxcfs/pmxcfs
	@tests/cluster/run.sh "$(PVE_CLUSTER_KIT)" "$(BUILD)/pmxcfs/pmxcfs"

# The cluster's figures (tests/bench/cluster.sh): check --all and list --cluster read
# through pmxcfs beside a plain tree; with the same kit.
bench-cluster: deps
	@[ -x "$(PVE_CLUSTER_KIT)/build-pmxcfs.sh" ] && [ -x "$(PVE_CLUSTER_KIT)/cluster.sh" ] || \
		{ echo "bench-cluster: no cluster kit in PVE_CLUSTER_KIT=$(PVE_CLUSTER_KIT) (see check-cluster)" >&2; exit 1; }
	$(MAKE) all tests-helpers $(BUILD)/pmxcfs/pmxcfs
	@tests/bench/cluster.sh "$(PVE_CLUSTER_KIT)" "$(BUILD)/pmxcfs/pmxcfs"

$(BUILD)/pmxcfs/pmxcfs: $(wildcard $(PVE_CLUSTER_KIT)/build-pmxcfs.sh $(PVE_CLUSTER_KIT)/*.tar.gz)
	@echo "  PMXCFS  $@"
	$(Q)"$(PVE_CLUSTER_KIT)/build-pmxcfs.sh" $(BUILD)/pmxcfs >/dev/null

# The hook's path under valgrind (a dynamically linked build: tests/valgrind.sh says why).
valgrind: deps
	$(MAKE) BUILD=build-vg HOOK_STATIC= OPT="-O1 -g" all
	@tests/valgrind.sh

# docs/findings.md comes from the code's catalogue (a test fails when it is stale).
docs: all
	$(BUILD)/gpu-provision findings --format markdown >docs/findings.md

# deps first, then a make that reads the Makefile again: the pkg-config flags above are
# taken when it is read, and on a fresh machine the packages come only with deps.
demo:
	@tools/deps.sh build run demo
	$(MAKE) all $(FAKECUDA)/.stamp $(FAKEDRIVER)/libnvidia-ml.so $(FAKEDRIVER)/nvidia-smi
	@tools/demo.sh

bench: deps
	$(MAKE) all tests-helpers $(BUILD)/cuinit
	@tests/bench/start-time.sh
	@tests/bench/check-parallel.sh
	@tests/bench/probe-time.sh

# Unit and integration tests with every binary (the hook too) under ASan and UBSan.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	      -fno-omit-frame-pointer
asan:
	$(MAKE) BUILD=build-asan OPT="$(ASAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" \
		HOOK_STATIC= all unit tests-helpers
	GP_BUILD=$(CURDIR)/build-asan tests/integration/run.sh

# Mutation tests (tests/mutants/README.md): each patch there breaks one promise of the code
# that guards the host, in a scratch copy of the tree, and the tests it names must fail.
# MUTANTS="tests/mutants/mount-*.patch" runs some of them.
.PHONY: mutants
mutants:
	@tools/mutants.sh $(MUTANTS)

# The alerting rules as Prometheus reads them, and their tests (tests/prometheus/).
.PHONY: rules-check
rules-check:
	promtool check rules conf/gpu-provision.rules.yml
	promtool test rules tests/prometheus/*.yml

FORMATTED := lib/*/*.[ch] hooks/*.c provision/*.[ch] probe/*.c tests/unit/*.[ch] \
	     tests/hostile/*.[ch] tests/helpers/*.c tests/faults/*.c
format:
	clang-format -i $(FORMATTED)

format-check:
	clang-format --dry-run --Werror $(FORMATTED)

clean:
	rm -rf $(BUILD) build-asan build-vg

-include $(LIB_OBJ:.o=.d) $(PROV_OBJ:.o=.d) $(HOOK_OBJ:.o=.d)
