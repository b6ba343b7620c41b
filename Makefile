# perflab.network: the two commands of the README, and their parts.
#   make lab    bootstrap, bring the local lab up, run the main playbook on it, bring it down
#   make test   bootstrap and run every test (lint, sanity, Galaxy's importer and docs linter, unit, lab integration)
SHELL := /bin/bash
VENV ?= .venv
BIN := $(VENV)/bin
ANSIBLE_PLAYBOOK := $(BIN)/ansible-playbook
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export PATH := $(CURDIR)/$(BIN):$(PATH)

# netns: network-namespace hosts (fast); vm: QEMU VMs with Debian's own kernel (bonds, NetworkManager,
# firewalld, tuned; minutes under TCG emulation; their throughput is never a result)
LAB_KIND ?= netns
LAB_NAME ?= $(if $(filter vm,$(LAB_KIND)),vmlab,perflab)
LAB_SUITE ?= bookworm
LAB_VM_LINKS ?= bridge
# VM labs: the bond of eth1 + eth2 in perflab_bond (stock_vs_tuned builds it in its tuned configuration at MTU 9000;
# the jumbo-bond study in both, at MTU 1500 then 9000: docs/studies.md); empty for none
LAB_VM_BOND ?= $(if $(filter vm,$(LAB_KIND)),balance-alb,)
LAB_HOSTS ?= 2
LAB_MGMT_SUBNET ?= 10.213.0.0/24
LAB_DATA_SUBNET ?= 10.213.1.0/24
LAB_MTU ?= 1500
LAB_RATE_MBIT ?= 0
# default-deny: the lab hosts drop inbound traffic but SSH from the management subnet, so the
# study passes only because its firewall stage opened the plan's ports (none: unfiltered hosts)
LAB_FIREWALL ?= $(if $(filter vm,$(LAB_KIND)),none,default-deny)
LAB_INVENTORY ?= $(if $(filter perflab,$(LAB_NAME)),inventories/lab/hosts.yml,inventories/lab-$(LAB_NAME)/hosts.yml)
LAB_VARS = -e lab_name=$(LAB_NAME) -e lab_hosts=$(LAB_HOSTS) -e lab_mgmt_subnet=$(LAB_MGMT_SUBNET) \
	-e lab_data_subnet=$(LAB_DATA_SUBNET) -e lab_mtu=$(LAB_MTU) -e lab_rate_mbit=$(LAB_RATE_MBIT) \
	-e lab_kind=$(LAB_KIND) -e lab_debian_suite=$(LAB_SUITE) -e lab_vm_links=$(LAB_VM_LINKS) -e lab_vm_bond=$(LAB_VM_BOND) \
	-e lab_firewall=$(LAB_FIREWALL)
# VM hosts run the bonding post's study (playbooks/studies/jumbo-bond.yml), once: Ansible under TCG
# costs seconds a task
MAIN_PLAYBOOK ?= $(if $(filter vm,$(LAB_KIND)),playbooks/studies/jumbo-bond.yml,playbooks/stock_vs_tuned.yml)
MAIN_VARS ?= $(if $(filter vm,$(LAB_KIND)),-e perflab_repetitions=1,-e perflab_suite=quick)
# outside the checkout: inside it, ansible-test would list files through the checkout's git
SANITY_ROOT := /tmp/perflab-sanity-$(shell echo $(CURDIR) | md5sum | cut -c1-8)/ansible_collections/perflab/network

.PHONY: bootstrap lab lab-up lab-down lab-main lab-snapshot lab-revert test test-long test-vm units sanity lint yamllint galaxy-check integration build install clean

bootstrap:
	@./scripts/bootstrap.sh

lab: bootstrap
	@start=$$(date +%s); rc=0; \
	$(MAKE) --no-print-directory lab-up && $(MAKE) --no-print-directory lab-main || rc=$$?; \
	$(MAKE) --no-print-directory lab-down || rc=$$((rc ? rc : $$?)); \
	echo "make lab: finished in $$(( $$(date +%s) - start )) s, exit $$rc; results in ./results/"; exit $$rc

lab-up:
	$(ANSIBLE_PLAYBOOK) -i inventories/controller.yml playbooks/lab_up.yml $(LAB_VARS)

lab-main:
	$(ANSIBLE_PLAYBOOK) -i $(LAB_INVENTORY) $(MAIN_PLAYBOOK) $(MAIN_VARS)

# VM labs: save the running VMs as SNAPSHOT, go back to it later (seconds instead of a boot)
SNAPSHOT ?= base
lab-snapshot lab-revert:
	$(ANSIBLE_PLAYBOOK) -i inventories/controller.yml playbooks/lab_snapshot.yml $(LAB_VARS) -e lab_snapshot=$(SNAPSHOT) \
		$(if $(filter lab-revert,$@),-e lab_state=revert)

lab-down:
	$(ANSIBLE_PLAYBOOK) -i inventories/controller.yml playbooks/lab_down.yml $(LAB_VARS)

# the static checks and the unit tests two at a time, the longest first (each mostly keeps one core
# busy: 2026-12-04 here, sanity 175 s, units 119, lint 97, galaxy-check 50, yamllint 6), each one's
# output whole when it ends; then the lab tests
STATIC_CHECKS := sanity units lint galaxy-check yamllint
test: bootstrap
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory -j2 --output-sync=target $(STATIC_CHECKS) && \
	$(MAKE) --no-print-directory integration; rc=$$?; \
	echo "make test: finished in $$(( $$(date +%s) - start )) s, exit $$rc"; exit $$rc

units:
	$(BIN)/python -m pytest tests/unit -q -p no:cacheprovider

# ansible-test wants the collection at .../ansible_collections/perflab/network
sanity:
	@mkdir -p $(SANITY_ROOT)
	@rsync -a --delete --exclude-from=scripts/sanity-exclude.txt ./ $(SANITY_ROOT)/
	cd $(SANITY_ROOT) && $(CURDIR)/$(BIN)/ansible-test sanity --local --python $(shell $(BIN)/python -c "import sys; print(\"%d.%d\" % sys.version_info[:2])") --color no \
		$(SANITY_ARGS)

lint:
	$(BIN)/ansible-lint --profile production

# What Galaxy checks on upload: galaxy-importer on the built tarball (no container,
# scripts/galaxy-importer.cfg) and antsibull-docs' docs linter; see scripts/galaxy-check.sh
galaxy-check:
	@BIN=$(BIN) ./scripts/galaxy-check.sh

yamllint:
	$(BIN)/yamllint -s .

# the lab modules run INTEGRATION_WORKERS at a time (pytest-xdist; a module and its lab stay in one
# worker): most of their time is waiting on the tests and on SSH, not on the CPU
INTEGRATION_WORKERS ?= 3
# make test's lab tests: all but the VM matrix (make test-vm) and the long scenario chains (make test-long)
INTEGRATION_MARKERS ?= not vm_matrix and not long
integration:
	$(BIN)/python -m pytest tests/integration -q -p no:cacheprovider -rfEs --tb=short -m "$(INTEGRATION_MARKERS)" \
		$(if $(filter-out 0 1,$(INTEGRATION_WORKERS)),-n $(INTEGRATION_WORKERS) --dist loadfile) --durations=60

# The long scenario chains (marker long): several whole study runs in a row through one fault, an AWX
# workflow or a runner's job, each beside a shorter test of the same path in make test (docs/testing.md)
test-long: bootstrap
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory integration INTEGRATION_MARKERS="long and not vm_matrix"; rc=$$?; \
	echo "make test-long: finished in $$(( $$(date +%s) - start )) s, exit $$rc"; exit $$rc

# The VM lab matrix: Debian 11, 12 and 13 (VM_SUITES) x ifupdown, NetworkManager, systemd-networkd x
# bond modes, on VM lab hosts (one image and one boot per suite; about 25 minutes a suite under TCG)
VM_SUITES ?= bullseye bookworm trixie
# VM_TESTS: a pytest -k expression, e.g. VM_TESTS=bond for the bond cases only
VM_TESTS ?=
test-vm: bootstrap
	@start=$$(date +%s); \
	PERFLAB_VM_SUITES="$(VM_SUITES)" $(BIN)/python -m pytest tests/integration/test_vm_lab.py tests/integration/test_vm_matrix.py tests/integration/test_vm_stacks.py -q -p no:cacheprovider -rs \
		-m vm_matrix --durations=0 $(if $(VM_TESTS),-k "$(VM_TESTS)"); rc=$$?; \
	echo "make test-vm: finished in $$(( $$(date +%s) - start )) s, exit $$rc"; exit $$rc

build:
	$(BIN)/ansible-galaxy collection build --force --output-path build/

# The built tarball into COLLECTIONS_DIR, run from / without this checkout's ansible.cfg: inside
# the checkout its collections_path is the checkout itself, and ansible-galaxy says "Nothing to do".
COLLECTIONS_DIR ?= $(HOME)/.ansible/collections
install: build
	cd / && env -u ANSIBLE_CONFIG $(CURDIR)/$(BIN)/ansible-galaxy collection install --force -p $(abspath $(COLLECTIONS_DIR)) \
		$(CURDIR)/$(lastword $(sort $(wildcard build/perflab-network-*.tar.gz)))

clean:
	rm -rf build .pytest_cache tests/output
