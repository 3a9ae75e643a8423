/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A Proxmox VE cluster through its filesystem: a node's published file written and read
 * back, a container's selection, driver and HMM policy judged against each node, the
 * guests' state from Proxmox's .rrd, and check's findings of it all over a scratch tree
 * laid out as /etc/pve is (nodes/<node>/lxc, gpu-provision/, the local and lxc links).
 */
#include "unit.h"

#include <sys/stat.h>
#include <unistd.h>

#include "base/quorum.h"
#include "base/util.h"
#include "check/check.h"
#include "cluster/cluster.h"
#include "driver/hoststate.h"
#include "ids.h"
#include "cluster/judge.h"
#include "cluster/rrd.h"
#include "cluster/checkcluster.h"

#define UUID_H200 "GPU-6ac7d90a-d0ef-add9-a6da-a7095d8b6460"
#define UUID_B200_0 "GPU-5eed0000-0000-4000-8000-000000000000"

static char root[128], confdir[192];

static void put_file(const char *rel, const char *text, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	assert_int_equal(gp_mkdir_parents(path), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void new_root(const char *fixture)
{
	snprintf(root, sizeof(root), "/tmp/gp-cluster.XXXXXX");
	assert_non_null(mkdtemp(root));
	if (fixture)
		sh("cp -a %s/%s/. %s/", FIXTURES, fixture, root);
	snprintf(confdir, sizeof(confdir), "%s/etc/gpu-provision", root);
	sh("mkdir -p %s", confdir);
}

static void cleanup(void)
{
	sh("rm -rf %s", root);
}

/* This root as node self of a cluster of nodes (space-separated): Proxmox's links and dirs. */
static void pve_tree(const char *self, const char *nodes)
{
	char copy[128], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", nodes);
	for (char *n = strtok_r(copy, " ", &save); n; n = strtok_r(NULL, " ", &save))
		sh("mkdir -p %s/etc/pve/nodes/%s/lxc", root, n);
	sh("mkdir -p %s/etc/pve/gpu-provision && ln -sfn nodes/%s %s/etc/pve/local && "
	   "ln -sfn nodes/%s/lxc %s/etc/pve/lxc",
	   root, self, root, self, root);
}

/* A container id on node with an ini (root's, 0640 as pmxcfs keeps it) saying ini. */
static void container(const char *node, const char *id, const char *ini)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "/etc/pve/nodes/%s/lxc/%s.conf", node, id);
	put_file(rel, "arch: amd64\nhostname: ct\n", 0640);
	snprintf(rel, sizeof(rel), "/etc/pve/gpu-provision/%s.ini", id);
	put_file(rel, ini, 0640);
}

/* A node's inventory as a host fixture's state makes it, under the defaults given. */
static void inventory_of(const char *fixture, const char *node, const char *defaults,
			 struct gp_node_inv *inv)
{
	char dir[256];
	struct gp_host_state s;
	struct gp_ini conf;

	snprintf(dir, sizeof(dir), "%s/%s", FIXTURES, fixture);
	assert_int_equal(gp_host_state_read(dir, 0, &s), 0);
	assert_int_equal(gp_ini_parse_as(defaults, "defaults", GP_CONF_HOST, &conf), 0);
	gp_node_inv_from_state(node, &s, &conf, 1760000000, inv);
	gp_host_state_free(&s);
}

/* Publishes inv under the root and reads the file back through a fresh parse. */
static void publish(const struct gp_node_inv *inv)
{
	assert_int_equal(gp_cluster_publish(root, inv), 0);
}

static void inventory_round_trip(void **state)
{
	static struct gp_node_inv inv, back;
	struct gp_log_capture said;
	char path[512], why[256];
	char *buf = NULL;
	struct stat st;

	(void)state;
	new_root(NULL);
	pve_tree("B", "A B");
	inventory_of("b200x8-590-open-hmm", "B",
		     "[uvm]\ndisable_hmm = no\n[driver]\ninject = yes\n", &inv);
	assert_int_equal(inv.ngpus, 8);
	assert_int_equal(inv.hmm_active, GP_YES);
	publish(&inv);
	snprintf(path, sizeof(path), "%s/etc/pve/gpu-provision/nodes/B.json", root);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, GP_CLUSTER_MODE); /* what pmxcfs's chmod takes */
	assert_int_equal(gp_read_file(path, GP_CLUSTER_FILE_MAX, &buf, NULL), 0);
	assert_non_null(strstr(buf, "\"nvidia-uvm\""));
	assert_int_equal(gp_node_inv_parse(buf, "B", &back, why, sizeof(why)), 0);
	assert_string_equal(back.node, "B");
	assert_int_equal(back.written, 1760000000);
	assert_true(back.driver_loaded);
	assert_string_equal(back.version, "590.48.01");
	assert_int_equal(back.flavor, GP_FLAVOR_OPEN);
	assert_int_equal(back.ngpus, 8);
	for (size_t i = 0; i < 8; i++) {
		assert_string_equal(back.gpus[i].uuid, inv.gpus[i].uuid);
		assert_string_equal(back.gpus[i].pci, inv.gpus[i].pci);
		assert_string_equal(back.gpus[i].model, "NVIDIA B200");
		assert_int_equal(back.gpus[i].index, inv.gpus[i].index);
		assert_int_equal(back.gpus[i].minor, inv.gpus[i].minor);
	}
	assert_int_equal(back.major_nvidia, 195);
	assert_int_equal(back.major_uvm, inv.major_uvm);
	assert_memory_equal(&back.registered_majors, &inv.registered_majors,
			    sizeof(inv.registered_majors));
	assert_true(gp_major_set_has(&back.registered_majors, 248)); /* ptp on the B200 host */
	assert_true(gp_major_set_has(&back.registered_majors, 511)); /* its nvidia-uvm */
	assert_false(gp_major_set_has(&back.registered_majors, 2));
	assert_true(back.uvm_loaded);
	assert_int_equal(back.uvm_disable_hmm, GP_NO);
	assert_int_equal(back.hmm_active, GP_YES);
	assert_int_equal(back.hmm_would_be_active, GP_YES);
	assert_int_equal(back.disable_hmm, GP_HMM_NO);
	assert_int_equal(back.on_conflict, GP_CONFLICT_REFUSE);
	assert_int_equal(back.inject, GP_INJECT_YES);
	/* A file under another node's name is refused: each node writes its own. */
	assert_int_equal(gp_node_inv_parse(buf, "A", &back, why, sizeof(why)), -GP_EBADCONF);
	assert_non_null(strstr(why, "not the file's name"));
	free(buf);
	/* Where the cluster filesystem refuses (here: gpu-provision is no directory), a warning. */
	sh("rm -rf %s/etc/pve/gpu-provision && touch %s/etc/pve/gpu-provision", root, root);
	gp_log_capture_start(&said);
	assert_int_equal(gp_cluster_publish(root, &inv), -ENOTDIR);
	gp_log_capture_stop(&said);
	assert_int_equal(said.count, 1);
	assert_non_null(strstr(said.text, "Failed to publish this node's GPUs"));
	cleanup();
}

static int parse(const char *text)
{
	static struct gp_node_inv inv;
	char why[256];

	return gp_node_inv_parse(text, "A", &inv, why, sizeof(why));
}

static void inventory_refusals(void **state)
{
	static const char good[] = "{\"format\":1,\"node\":\"A\",\"written\":1,"
				   "\"driver\":{\"loaded\":false},\"gpus\":[],"
				   "\"majors\":{\"registered\":[1,4095]}}";
	static const char *const bad_majors[] = { "", "\"majors\":{},",
						  "\"majors\":{\"registered\":[4096]},",
						  "\"majors\":{\"registered\":[-1]},",
						  "\"majors\":{\"registered\":[\"1\"]}," };
	char text[256];

	(void)state;
	assert_int_equal(parse(good), 0);
	assert_int_equal(parse("not json"), -GP_EBADCONF);
	assert_int_equal(parse("[]"), -GP_EBADCONF);
	/* Other drivers' majors: required, each a major. */
	for (size_t i = 0; i < sizeof(bad_majors) / sizeof(bad_majors[0]); i++) {
		snprintf(text, sizeof(text),
			 "{%s\"format\":1,\"node\":\"A\",\"written\":1,\"driver\":"
			 "{\"loaded\":false},\"gpus\":[]}",
			 bad_majors[i]);
		if (parse(text) != -GP_EBADCONF)
			fail_msg("accepted %s", text);
	}
	assert_int_equal(parse("{\"format\":1,\"node\":\"A\",\"written\":1,\"majors\":{\"regis"
			       "tered\":[]},\"gpus\":[]}"),
			 -GP_EBADCONF);
	assert_int_equal(parse("{\"format\":1,\"node\":\"A\",\"written\":1,\"majors\":{\"regis"
			       "tered\":[]},\"driver\":{\"loaded\":"
			       "false},\"gpus\":{}}"),
			 -GP_EBADCONF);
	assert_int_equal(parse("{\"format\":1,\"node\":\"A\",\"written\":1,\"majors\":{\"regis"
			       "tered\":[]},\"driver\":{\"loaded\":"
			       "true},\"gpus\":[{\"index\":99,\"minor\":0,\"pci\":\"x\",\"uuid\":"
			       "\"GPU-1\"}]}"),
			 -GP_EBADCONF);
	assert_int_equal(parse("{\"format\":1,\"node\":\"A\",\"written\":1,\"majors\":{\"regis"
			       "tered\":[]},\"driver\":{\"loaded\":"
			       "true,\"version\":\"5\\u0007\"},\"gpus\":[]}"),
			 -GP_EBADCONF); /* a control character */
	assert_int_equal(parse("{\"format\":1,\"node\":\"A\",\"written\":1,\"majors\":{\"regis"
			       "tered\":[]},\"driver\":{\"loaded\":"
			       "false},\"gpus\":[],\"policy\":{\"disable_hmm\":\"maybe\"}}"),
			 -GP_EBADCONF);
	/* A newer format's fields that this code does not know are left alone. */
	assert_int_equal(parse("{\"format\":2,\"node\":\"A\",\"written\":1,\"majors\":{\"regis"
			       "tered\":[]},\"driver\":{\"loaded\":"
			       "false},\"gpus\":[],\"future\":{\"x\":1}}"),
			 0);
}

/* Two nodes by hand: A has one H200, B eight B200s (index 5 excluded in one case). */
static struct gp_node_inv node_a, node_b;

static void two_nodes(void)
{
	inventory_of("h200-580-open", "A", "", &node_a);
	inventory_of("b200x8-590-open-hmm", "B", "", &node_b);
	node_b.hmm_active = GP_NO; /* as prepare leaves it with disable_hmm = auto */
}

static int judge(const char *devices, const struct gp_node_inv *node, char *why)
{
	return gp_selection_judge(devices, node, why, 512);
}

static void selections(void **state)
{
	char why[512];

	(void)state;
	two_nodes();
	assert_int_equal(judge(UUID_H200, &node_a, why), 0);
	assert_int_equal(judge(UUID_H200, &node_b, why), 1);
	assert_non_null(strstr(why, UUID_H200 " is not on B"));
	assert_int_equal(judge("gpu-6AC7D90A-d0ef-add9-a6da-a7095d8b6460", &node_a, why), 0);
	assert_int_equal(judge(UUID_B200_0 ",3", &node_b, why), 0);
	assert_int_equal(judge("0", &node_a, why), 0);
	assert_int_equal(judge("8", &node_b, why), 1);
	assert_string_equal(why, "index 8: B has GPUs 0-7");
	assert_int_equal(judge("3", &node_a, why), 1);
	assert_string_equal(why, "index 3: A has GPU 0 only");
	assert_int_equal(judge("0000:00:06.0", &node_a, why), 0);
	assert_int_equal(judge("00:06.0", &node_a, why), 0);
	assert_int_equal(judge("18:00.0", &node_a, why), 1);
	assert_string_equal(why, "A has no GPU at PCI address 18:00.0");
	assert_int_equal(judge("0000:18:00.0", &node_b, why), 0);
	assert_int_equal(judge("all", &node_a, why), 0);
	assert_int_equal(judge("any:1", &node_a, why), 0);
	assert_int_equal(judge("any:1", &node_b, why), 0);
	assert_int_equal(judge("any:2", &node_a, why), 1);
	assert_string_equal(why, "any:2: A has 1 GPU(s) to give (it has 1 x NVIDIA H200)");
	assert_int_equal(judge("any:8", &node_b, why), 0);
	assert_int_equal(judge("model:B200:2", &node_b, why), 0);
	assert_int_equal(judge("model:b200:2", &node_b, why), 0); /* case-insensitive */
	assert_int_equal(judge("model:B200:2", &node_a, why), 1);
	assert_string_equal(why, "model:B200:2: A has 0 GPU(s) whose model contains \"B200\" (it "
				 "has 1 x NVIDIA H200)");
	assert_int_equal(judge("model:H200:1", &node_a, why), 0);
	assert_int_equal(judge("model:B200:9", &node_b, why), 1);
	/* N is 1 to 64, as lib/plan/alloc.c reads it: 65 is no count of GPUs, not merely too many.
	 */
	assert_int_equal(judge("any:64", &node_b, why), 1);
	assert_int_equal(judge("any:65", &node_b, why), -GP_EBADCONF);
	assert_int_equal(judge("model:B200:65", &node_b, why), -GP_EBADCONF);
	/* Each reason, "; "-joined. */
	assert_int_equal(judge("5,3", &node_a, why), 1);
	assert_string_equal(why, "index 5: A has GPU 0 only; index 3: A has GPU 0 only");
	/* A GPU the driver excluded is not there to give. */
	node_b.gpus[5].excluded = true;
	assert_int_equal(judge("5", &node_b, why), 1);
	assert_non_null(strstr(why, "excluded by the driver on B"));
	assert_int_equal(judge("any:8", &node_b, why), 1);
	assert_int_equal(judge("any:7", &node_b, why), 0);
	/* What lib/plan/alloc.c would refuse, and what this judgement does not know, is said. */
	assert_int_equal(judge("0,any:1", &node_a, why), -GP_EBADCONF);
	assert_int_equal(judge("any:1,0", &node_a, why), -GP_EBADCONF);
	assert_non_null(strstr(why, "stand alone"));
	assert_int_equal(judge("model:H200", &node_a, why), -GP_EBADCONF); /* no count */
	assert_int_equal(judge("any:0", &node_a, why), -GP_EBADCONF);
	assert_int_equal(judge("MIG-1234", &node_a, why), -GP_EBADCONF);
	assert_int_equal(judge(" , ", &node_a, why), -GP_EBADCONF);
}

static void versions(void **state)
{
	(void)state;
	assert_int_equal(gp_version_cmp("580.159.04", "590.48.01"), -1);
	assert_int_equal(gp_version_cmp("590.48.01", "580.159.04"), 1);
	assert_int_equal(gp_version_cmp("580.95.05", "580.159.04"), -1); /* numerically */
	assert_int_equal(gp_version_cmp("580.159.04", "580.159.04"), 0);
	assert_int_equal(gp_version_cmp("580.159", "580.159.1"), -1);
}

static void ct_of(struct gp_cluster_ct *ct, const char *node, const char *ini)
{
	memset(ct, 0, sizeof(*ct));
	snprintf(ct->id, sizeof(ct->id), "101");
	snprintf(ct->node, sizeof(ct->node), "%s", node);
	assert_int_equal(gp_ini_parse(ini, "101.ini", &ct->conf), 0);
}

static enum gp_start on(const struct gp_cluster_ct *ct, const struct gp_node_inv *home,
			struct gp_node_inv *inv, struct gp_start_verdict *v)
{
	struct gp_cluster_node node = { .inv = inv };

	snprintf(node.name, sizeof(node.name), "%s", inv->node);
	gp_cluster_judge(ct, home, &node, v);
	return v->start;
}

static void starts(void **state)
{
	static struct gp_cluster_ct ct;
	struct gp_cluster_node none = { .name = "C", .status = -ENOENT, .why = "no file" };
	struct gp_start_verdict v;

	(void)state;
	two_nodes();
	/* any:1 fits both; another driver with inject = no cannot start. */
	ct_of(&ct, "A", "[gpu]\ndevices = any:1\n[driver]\ninject = no\n");
	assert_int_equal(on(&ct, &node_a, &node_a, &v), GP_START_YES);
	assert_string_equal(v.why, "");
	assert_int_equal(on(&ct, &node_a, &node_b, &v), GP_START_NO);
	assert_int_equal(v.reasons, GP_REASON_DRIVER);
	assert_non_null(strstr(v.why, "driver 590.48.01 on B, 580.159.04 on A"));
	/* With inject = yes it starts, with the other driver said. */
	ct_of(&ct, "A", "[gpu]\ndevices = any:1\n[driver]\ninject = yes\n");
	assert_int_equal(on(&ct, &node_a, &node_b, &v), GP_START_YES);
	assert_non_null(strstr(v.note, "each start injects that node's user space"));
	assert_null(strstr(v.note, "older"));
	ct_of(&ct, "B", "[gpu]\ndevices = any:1\n[driver]\ninject = yes\n");
	assert_int_equal(on(&ct, &node_b, &node_a, &v), GP_START_YES);
	assert_non_null(strstr(v.note, "an older one"));
	/* An ini that leaves inject out gets the node's default. */
	ct_of(&ct, "A", "[gpu]\ndevices = any:1\n");
	node_b.inject = GP_INJECT_YES;
	assert_int_equal(on(&ct, &node_a, &node_b, &v), GP_START_YES);
	node_b.inject = GP_INJECT_NO;
	assert_int_equal(on(&ct, &node_a, &node_b, &v), GP_START_NO);
	/* A home node that published nothing: the driver cannot be compared. */
	assert_int_equal(on(&ct, NULL, &node_b, &v), GP_START_YES);
	/* A UUID only A has, and the driver: both reasons. */
	ct_of(&ct, "A", "[gpu]\ndevices = " UUID_H200 "\n");
	assert_int_equal(on(&ct, &node_a, &node_b, &v), GP_START_NO);
	assert_int_equal(v.reasons, GP_REASON_SELECTION | GP_REASON_DRIVER);
	/* HMM on in B's nvidia_uvm. */
	node_b.hmm_active = GP_YES;
	ct_of(&ct, "B", "[gpu]\ndevices = any:1\n");
	assert_int_equal(on(&ct, &node_b, &node_b, &v), GP_START_NO);
	assert_int_equal(v.reasons, GP_REASON_HMM);
	assert_non_null(strstr(v.why, "disable_hmm = auto, on_conflict = refuse"));
	ct_of(&ct, "B", "[gpu]\ndevices = any:1\n[uvm]\non_conflict = warn\n");
	assert_int_equal(on(&ct, &node_b, &node_b, &v), GP_START_YES);
	assert_non_null(strstr(v.note, "on_conflict = warn"));
	ct_of(&ct, "B", "[gpu]\ndevices = any:1\n[uvm]\ndisable_hmm = no\n");
	assert_int_equal(on(&ct, &node_b, &node_b, &v), GP_START_YES);
	assert_non_null(strstr(v.note, "which disable_hmm = no accepts"));
	node_b.disable_hmm = GP_HMM_NO; /* B's own default, for an ini that leaves it out */
	ct_of(&ct, "B", "[gpu]\ndevices = any:1\n");
	assert_int_equal(on(&ct, &node_b, &node_b, &v), GP_START_YES);
	/* No driver there; a node that published nothing; a selection not understood. */
	node_b.driver_loaded = false;
	assert_int_equal(on(&ct, &node_b, &node_b, &v), GP_START_NO);
	assert_int_equal(v.reasons, GP_REASON_NO_DRIVER);
	gp_cluster_judge(&ct, &node_a, &none, &v);
	assert_int_equal(v.start, GP_START_UNKNOWN);
	assert_string_equal(v.why, "C has published no GPUs: no file");
	ct_of(&ct, "A", "[gpu]\ndevices = MIG-1\n");
	assert_int_equal(on(&ct, &node_a, &node_a, &v), GP_START_UNKNOWN);
}

static void rrd(void **state)
{
	/* As pmxcfs serves it: key:data lines, then a NUL (cfs_rrd_dump). */
	static const char dump[] =
	    "pve2-node/A:12345:0.1:U\n"
	    "pve2.3-vm/101:0:ct101:stopped:0:1000:2:U:536870912:U:8589934592:0:U:U:U:U\n"
	    "pve2.3-vm/102:3600:ct102:running:0:1000:2:0.01:536870912:1000:8589934592:1:2:3:4:5\n"
	    "pve-vm-9.0/102:3600:ct102:stopped:0:1000:2:U:536870912:U:8589934592:U:U:U:U:U\n"
	    "pve2.3-vm/103:3600:ct103:running:0:900:2:U\n"
	    "pve2.3-vm/104:3600:ct104:Running:0:1000\n"
	    "pve2.3-vm/1050:1:ct:running:0:1000\n";
	char state_[16];

	(void)state;
	assert_int_equal(gp_rrd_state(dump, sizeof(dump), "101", 1030, state_, sizeof(state_)), 0);
	assert_string_equal(state_, "STOPPED");
	/* Proxmox's reader prefers PVE 9's key (get_rrd_key). */
	assert_int_equal(gp_rrd_state(dump, sizeof(dump), "102", 1030, state_, sizeof(state_)), 0);
	assert_string_equal(state_, "STOPPED");
	assert_int_equal(gp_rrd_state(dump, sizeof(dump), "103", 1030, state_, sizeof(state_)),
			 -ESTALE);
	assert_int_equal(gp_rrd_state(dump, sizeof(dump), "104", 1030, state_, sizeof(state_)),
			 -GP_EBADCONF);
	assert_int_equal(gp_rrd_state(dump, sizeof(dump), "105", 1030, state_, sizeof(state_)),
			 -ENOENT); /* 1050 is another guest */
	assert_int_equal(gp_rrd_state(dump, sizeof(dump), "106", 1030, state_, sizeof(state_)),
			 -ENOENT);
	assert_int_equal(gp_rrd_state("", 1, "101", 1030, state_, sizeof(state_)), -ENOENT);
}

/* A node's file as inventory_of makes it, written where the node publishes. */
static void published(const char *fixture, const char *node, const char *defaults,
		      void (*change)(struct gp_node_inv *))
{
	static struct gp_node_inv inv;

	inventory_of(fixture, node, defaults, &inv);
	if (change)
		change(&inv);
	publish(&inv);
}

static void hmm_off(struct gp_node_inv *inv)
{
	inv->hmm_active = GP_NO;
}

static void other_h200(struct gp_node_inv *inv)
{
	snprintf(inv->gpus[0].uuid, sizeof(inv->gpus[0].uuid), "GPU-0ther000-0000-4000-8000-0");
}

static void older_driver(struct gp_node_inv *inv)
{
	snprintf(inv->version, sizeof(inv->version), "575.51.03");
}

static struct gp_cluster_check cc;

static void run_check(const char *only)
{
	struct gp_check_run run;
	struct gp_log_capture quiet;

	gp_log_capture_start(&quiet);
	assert_int_equal(
	    gp_check_run_init(&run, test_ctx(root, confdir, NULL, true), test_runtime(root, true)),
	    0);
	assert_int_equal(gp_check_cluster(&run, only, &cc), 0);
	gp_check_run_free(&run);
	gp_log_capture_stop(&quiet);
}

static const struct gp_findings *ct_findings(const char *id)
{
	for (size_t i = 0; i < cc.n; i++)
		if (strcmp(cc.subj[i].ct->id, id) == 0)
			return &cc.subj[i].f;
	fail_msg("no container %s in the cluster's check", id);
	return NULL;
}

/* check from A over a cluster of A (one H200), B (eight B200) and C (nothing published). */
static void cluster_findings(void **state)
{
	const struct gp_finding *x;

	(void)state;
	if (geteuid() != 0)
		skip(); /* an ini must be root's */
	new_root("h200-580-open");
	pve_tree("A", "A B C");
	published("h200-580-open", "A", "[driver]\ninject = no\n", NULL);
	published("b200x8-590-open-hmm", "B", "[driver]\ninject = no\n", hmm_off);
	container("A", "101", "[gpu]\ndevices = " UUID_H200 "\n");
	container("A", "102", "[gpu]\ndevices = any:1\n[driver]\ninject = yes\n");
	container("A", "103", "[gpu]\ndevices = any:1\n");
	container("B", "201", "[gpu]\ndevices = model:B200:2\n");
	put_file("/etc/pve/nodes/B/lxc/202.conf", "arch: amd64\n", 0640); /* no ini: no GPUs */
	run_check(NULL);
	assert_string_equal(cc.cl.self, "A");
	assert_int_equal(cc.cl.nnodes, 3);
	assert_int_equal(cc.n, 4);
	assert_ids(&cc.f, "cluster-node-unpublished", NULL);
	x = finding(&cc.f, "cluster-node-unpublished");
	assert_non_null(strstr(x->summary, "node C has published no GPUs"));
	assert_ids(ct_findings("101"), "cluster-start-refused", NULL);
	x = finding(ct_findings("101"), "cluster-start-refused");
	assert_string_equal(x->summary, "101 (on A) cannot start on node B");
	assert_non_null(strstr(x->evidence, UUID_H200 " is not on B"));
	assert_non_null(strstr(x->evidence, "driver 590.48.01 on B, 580.159.04 on A"));
	assert_non_null(strstr(x->fix, "--gpus any:N"));
	assert_non_null(strstr(x->fix, "--inject"));
	assert_ids(ct_findings("102"), "cluster-start-differs", NULL);
	x = finding(ct_findings("102"), "cluster-start-differs");
	assert_non_null(strstr(x->evidence, "B: driver 590.48.01 on B"));
	assert_ids(ct_findings("103"), "cluster-start-refused",
		   NULL); /* inject = no, A's default */
	assert_ids(ct_findings("201"), "cluster-start-refused", NULL);
	x = finding(ct_findings("201"), "cluster-start-refused");
	assert_non_null(strstr(x->evidence, "model:B200:2: A has 0 GPU(s)"));
	/* Each container's verdict on each node, in the nodes' order: yes, no, unknown. */
	assert_int_equal(cc.subj[0].starts[0].start, GP_START_YES);
	assert_int_equal(cc.subj[0].starts[1].start, GP_START_NO);
	assert_int_equal(cc.subj[0].starts[2].start, GP_START_UNKNOWN);
	gp_check_cluster_free(&cc);
	/* check NAME: that container alone. */
	run_check("102");
	assert_int_equal(cc.n, 1);
	gp_check_cluster_free(&cc);
	/* Near: C publishes, B's driver is A's: nothing left to say but 101's UUID. */
	published("h200-580-open", "C", "", NULL);
	published("h200-580-open", "B", "", other_h200);
	run_check(NULL);
	assert_ids(&cc.f, NULL);
	assert_ids(ct_findings("101"), "cluster-start-refused", NULL); /* B's H200 is another */
	assert_ids(ct_findings("102"), NULL);
	assert_ids(ct_findings("103"), NULL);
	gp_check_cluster_free(&cc);
	cleanup();
}

/* This node's own file against what the host has now. */
static void own_inventory(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	new_root("h200-580-open");
	pve_tree("A", "A");
	published("h200-580-open", "A", "", older_driver);
	run_check(NULL);
	assert_ids(&cc.f, "cluster-inventory-stale", NULL);
	assert_non_null(strstr(cc.f.v[0].evidence, "driver 575.51.03, 1 GPU(s)"));
	assert_non_null(strstr(cc.f.v[0].evidence, "now: driver 580.159.04, 1 GPU(s)"));
	gp_check_cluster_free(&cc);
	published("h200-580-open", "A", "", NULL);
	run_check(NULL);
	assert_ids(&cc.f, NULL);
	gp_check_cluster_free(&cc);
	/* A file that does not parse is one the node has not published. */
	put_file("/etc/pve/gpu-provision/nodes/A.json", "{\"format\":1}", 0640);
	run_check(NULL);
	assert_ids(&cc.f, "cluster-node-unpublished", NULL);
	assert_non_null(strstr(cc.f.v[0].summary, "cannot be read"));
	gp_check_cluster_free(&cc);
	cleanup();
}

#define MEMBERS(q)                                                                                 \
	"{\n\"nodename\": \"A\",\n\"version\": 6,\n\"cluster\": { \"name\": \"c\", \"version\": "  \
	"1, "                                                                                      \
	"\"nodes\": 2, \"quorate\": " q " },\n\"nodelist\": {}\n}\n"

/* pmxcfs's .members, as it writes it: without quorum check says so, and so does a refused write. */
static void quorum(void **state)
{
	char path[512];

	(void)state;
	if (geteuid() != 0)
		skip();
	new_root("h200-580-open");
	pve_tree("A", "A");
	published("h200-580-open", "A", "", NULL);
	snprintf(path, sizeof(path), "%s/etc/pve/gpu-provision/101.ini", root);
	/* No .members: a tree of ours, not pmxcfs; a refused write there is most often quorum. */
	assert_int_equal(gp_pve_quorate(root), -ENOENT);
	run_check(NULL);
	assert_ids(&cc.f, NULL);
	gp_check_cluster_free(&cc);
	assert_non_null(strstr(gp_pve_write_refused(path, -EACCES), "no quorum"));
	put_file("/etc/pve/.members", MEMBERS("0"), 0440);
	assert_int_equal(gp_pve_quorate(root), 0);
	run_check(NULL);
	assert_ids(&cc.f, "cluster-not-quorate", NULL);
	assert_non_null(strstr(cc.f.v[0].evidence, "/etc/pve/.members\": \"quorate\": 0"));
	gp_check_cluster_free(&cc);
	assert_non_null(strstr(gp_pve_write_refused(path, -EACCES), "no quorum"));
	assert_non_null(strstr(gp_pve_write_refused(path, -EROFS), "no quorum"));
	assert_string_equal(gp_pve_write_refused(path, -ENOSPC), "");
	assert_string_equal(gp_pve_write_refused("/var/lib/x", -EACCES), "");
	assert_non_null(strstr(gp_pve_write_refused("/etc/pve/lxc/101.conf", -EEXIST),
			       "config on another node"));
	assert_string_equal(gp_pve_write_refused("/var/lib/lxc/101/config", -EEXIST), "");
	/* Quorate: a refused write is something else, and check has nothing to say of it. */
	put_file("/etc/pve/.members", MEMBERS("1"), 0440);
	assert_int_equal(gp_pve_quorate(root), 1);
	assert_string_equal(gp_pve_write_refused(path, -EACCES), "");
	run_check(NULL);
	assert_ids(&cc.f, NULL);
	gp_check_cluster_free(&cc);
	put_file("/etc/pve/.members", "{}", 0440);
	assert_int_equal(gp_pve_quorate(root), -GP_EBADCONF);
	cleanup();
}

/* A Proxmox container's ini left in the node's confdir. */
static void ini_node_local(void **state)
{
	struct gp_check_run run;
	struct gp_findings f;
	struct gp_log_capture quiet;

	(void)state;
	if (geteuid() != 0)
		skip();
	new_root("h200-580-open");
	pve_tree("A", "A");
	put_file("/etc/pve/nodes/A/lxc/101.conf", "arch: amd64\n", 0640);
	put_file("/etc/gpu-provision/101.ini", "[gpu]\ndevices = 0\n", 0644);
	gp_log_capture_start(&quiet);
	assert_int_equal(
	    gp_check_run_init(&run, test_ctx(root, confdir, NULL, true), test_runtime(root, true)),
	    0);
	gp_log_capture_stop(&quiet);
	memset(&f, 0, sizeof(f));
	gp_check_ini_node_local(&run, "101", &f);
	assert_ids(&f, "ini-node-local", NULL);
	assert_non_null(strstr(f.v[0].evidence, "on any other node 101 starts without its ini"));
	assert_non_null(strstr(f.v[0].fix, "gpu-provision sync 101"));
	put_file("/etc/pve/gpu-provision/101.ini", "[gpu]\ndevices = 0\n", 0640);
	memset(&f, 0, sizeof(f));
	gp_check_ini_node_local(&run, "101", &f);
	assert_ids(&f, "ini-node-local", NULL);
	assert_non_null(strstr(f.v[0].evidence, "which is the one read"));
	/* Near: the cluster's alone. */
	sh("rm %s/etc/gpu-provision/101.ini", root);
	memset(&f, 0, sizeof(f));
	gp_check_ini_node_local(&run, "101", &f);
	assert_ids(&f, NULL);
	gp_check_run_free(&run);
	cleanup();
	/* Off Proxmox VE the confdir is where inis live: nothing to say. */
	new_root("h200-580-open");
	put_file("/etc/gpu-provision/101.ini", "[gpu]\ndevices = 0\n", 0644);
	gp_log_capture_start(&quiet);
	assert_int_equal(gp_check_run_init(&run, test_ctx(root, confdir, NULL, false),
					   test_runtime(root, false)),
			 0);
	gp_log_capture_stop(&quiet);
	memset(&f, 0, sizeof(f));
	gp_check_ini_node_local(&run, "101", &f);
	assert_ids(&f, NULL);
	gp_check_run_free(&run);
	cleanup();
}

/* The cluster's tree: node directories, containers with a cluster ini, in id order. */
static void cluster_read(void **state)
{
	static struct gp_cluster c;

	(void)state;
	if (geteuid() != 0)
		skip();
	new_root(NULL);
	assert_int_equal(gp_cluster_read(test_ctx(root, confdir, NULL, false), &c),
			 -ENOENT); /* no Proxmox VE */
	pve_tree("A", "A B");
	sh("mkdir -p %s/etc/pve/nodes/.hidden %s/etc/pve/nodes/bad_name", root, root);
	container("B", "1000", "[gpu]\ndevices = 0\n");
	container("A", "999", "[gpu]\ndevices = 0\n");
	container("A", "101", "[gpu]\ndevices = 0\nbogus = 1\n");
	put_file("/etc/pve/nodes/A/lxc/102.conf", "arch: amd64\n", 0640);
	put_file("/etc/pve/nodes/A/lxc/notes.txt", "x", 0640);
	assert_int_equal(gp_cluster_read(test_ctx(root, confdir, NULL, false), &c), 0);
	assert_string_equal(c.self, "A");
	assert_int_equal(c.nnodes, 2);
	assert_string_equal(c.nodes[0].name, "A");
	assert_int_equal(c.nodes[0].status, -ENOENT);
	assert_int_equal(c.ncts, 3);
	assert_string_equal(c.cts[0].id, "101");
	assert_int_equal(c.cts[0].ini_status, -GP_EBADCONF);
	assert_non_null(strstr(c.cts[0].ini_error, "unknown key"));
	assert_string_equal(c.cts[1].id, "999");
	assert_string_equal(c.cts[2].id, "1000");
	assert_string_equal(c.cts[2].node, "B");
	gp_cluster_free(&c);
	cleanup();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inventory_round_trip),
		cmocka_unit_test(inventory_refusals),
		cmocka_unit_test(selections),
		cmocka_unit_test(versions),
		cmocka_unit_test(starts),
		cmocka_unit_test(rrd),
		cmocka_unit_test(cluster_findings),
		cmocka_unit_test(own_inventory),
		cmocka_unit_test(quorum),
		cmocka_unit_test(ini_node_local),
		cmocka_unit_test(cluster_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
