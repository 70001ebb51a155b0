// SPDX-License-Identifier: GPL-2.0
/*
 * insn-profile: a QEMU TCG plugin that counts the guest instructions run
 * in each kernel function, between marks the guest sets by calling a
 * marker function (by default the sync(2) system call).
 *
 *   qemu-system-x86_64 ... -plugin ./insn-profile.so,map=System.map,out=F
 *                                  [,mark=__x64_sys_sync][,top=60]
 *                                  [,detail=PREFIX]
 *
 * Each translated block adds its instruction count to the counter of the
 * function that holds its first instruction (from System.map; user space
 * is one bucket).  A mark copies the counters; at exit, F gets, for each
 * pair of consecutive marks, the instructions per function in between.
 * Counts are of instructions, not time: they repeat exactly for the same
 * guest work, whatever the host is doing.  Inlined helpers count in the
 * function they were inlined into.  Meant for one vCPU (the counters are
 * not atomic).  With detail=PREFIX, F also gets, per window, the
 * instructions run in each block of the functions whose names start with
 * PREFIX, by address: addr2line on a vmlinux with debug information
 * then tells the source lines.
 *
 * The plugin API is declared here, as QEMU 7.2 defines it, because
 * Debian ships no header for it.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *udata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu, void *udata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *udata);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *udata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

struct sym {
	uint64_t addr;
	char *name;
};

static struct sym *syms;	/* sorted by address; [0] is user space */
static size_t nr_syms;
static uint64_t *counts;	/* per symbol */
static uint64_t **marks;	/* copies of counts, one per mark */
static size_t nr_marks;
static uint64_t mark_addr;
static const char *out_path;
static unsigned int top = 60;

/* detail=: a counter per translated block of the chosen functions. */
struct block {
	uint64_t addr;
	uint64_t insns;
};

static const char *detail;
static struct block *blocks;
static size_t nr_blocks, cap_blocks;
static uint64_t **block_marks;	/* copies of the blocks' counts */
static size_t *block_marks_n;

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Text symbols of System.map ("ADDR t|T|W NAME"). */
static int load_map(const char *path, const char *mark)
{
	char line[512], type, name[256];
	size_t cap = 1024;
	uint64_t addr;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	syms = calloc(cap, sizeof(*syms));
	syms[nr_syms++] = (struct sym){ 0, strdup("[user]") };
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'W' && type != 'w')
			continue;
		if (nr_syms == cap) {
			cap *= 2;
			syms = realloc(syms, cap * sizeof(*syms));
		}
		syms[nr_syms++] = (struct sym){ addr, strdup(name) };
		if (!strcmp(name, mark))
			mark_addr = addr;
	}
	fclose(f);
	qsort(syms + 1, nr_syms - 1, sizeof(*syms), sym_cmp);
	counts = calloc(nr_syms, sizeof(*counts));
	return mark_addr ? 0 : -1;
}

/* The symbol holding @pc: the last one at or below it. */
static size_t sym_of(uint64_t pc)
{
	size_t lo = 1, hi = nr_syms;

	if (pc < syms[1].addr)
		return 0;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void on_mark(unsigned int vcpu, void *udata)
{
	marks = realloc(marks, (nr_marks + 1) * sizeof(*marks));
	marks[nr_marks] = malloc(nr_syms * sizeof(*counts));
	memcpy(marks[nr_marks], counts, nr_syms * sizeof(*counts));
	block_marks = realloc(block_marks, (nr_marks + 1) * sizeof(uint64_t *));
	block_marks_n = realloc(block_marks_n, (nr_marks + 1) * sizeof(size_t));
	block_marks[nr_marks] = malloc((nr_blocks + 1) * sizeof(uint64_t));
	for (size_t i = 0; i < nr_blocks; i++)
		block_marks[nr_marks][i] = blocks[i].insns;
	block_marks_n[nr_marks++] = nr_blocks;
}

/*
 * A block's counter.  Inline counters point into the array, so it never
 * moves: it has a fixed size, and blocks past it go uncounted.
 */
static uint64_t *block_counter(uint64_t pc)
{
	if (nr_blocks == cap_blocks)
		return NULL;
	blocks[nr_blocks].addr = pc;
	return &blocks[nr_blocks++].insns;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t pc = qemu_plugin_tb_vaddr(tb), *c;
	size_t sym = sym_of(pc);

	qemu_plugin_register_vcpu_tb_exec_inline(tb,
						 QEMU_PLUGIN_INLINE_ADD_U64,
						 &counts[sym],
						 qemu_plugin_tb_n_insns(tb));
	if (detail && sym && !strncmp(syms[sym].name, detail, strlen(detail)) &&
	    (c = block_counter(pc)))
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
						QEMU_PLUGIN_INLINE_ADD_U64, c,
						qemu_plugin_tb_n_insns(tb));
	if (pc == mark_addr)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark,
						     QEMU_PLUGIN_CB_NO_REGS,
						     NULL);
}

static uint64_t *delta;

static int delta_cmp(const void *a, const void *b)
{
	uint64_t x = delta[*(const size_t *)a], y = delta[*(const size_t *)b];

	return x > y ? -1 : x < y;
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
	size_t *order = calloc(nr_syms, sizeof(*order));
	FILE *f = fopen(out_path, "w");

	if (!f)
		return;
	delta = calloc(nr_syms, sizeof(*delta));
	for (size_t w = 0; w + 1 < nr_marks; w++) {
		uint64_t total = 0;

		for (size_t i = 0; i < nr_syms; i++) {
			delta[i] = marks[w + 1][i] - marks[w][i];
			total += delta[i];
			order[i] = i;
		}
		qsort(order, nr_syms, sizeof(*order), delta_cmp);
		fprintf(f, "window %zu total %" PRIu64 "\n", w + 1, total);
		for (size_t i = 0; i < nr_syms && i < top; i++) {
			if (!delta[order[i]])
				break;
			fprintf(f, "%14" PRIu64 " %s\n", delta[order[i]],
				syms[order[i]].name);
		}
		for (size_t i = 0; i < block_marks_n[w + 1]; i++) {
			uint64_t d = block_marks[w + 1][i] -
				     (i < block_marks_n[w] ? block_marks[w][i] : 0);

			if (d)
				fprintf(f, "block %" PRIx64 " %" PRIu64 " %s\n",
					blocks[i].addr, d,
					syms[sym_of(blocks[i].addr)].name);
		}
	}
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const void *info,
			int argc, char **argv)
{
	const char *map = NULL, *mark = "__x64_sys_sync";

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "map=", 4))
			map = argv[i] + 4;
		else if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
		else if (!strncmp(argv[i], "mark=", 5))
			mark = argv[i] + 5;
		else if (!strncmp(argv[i], "top=", 4))
			top = atoi(argv[i] + 4);
		else if (!strncmp(argv[i], "detail=", 7))
			detail = argv[i] + 7;
	}
	if (detail) {
		cap_blocks = 1 << 20;
		blocks = calloc(cap_blocks, sizeof(*blocks));
	}
	if (!map || !out_path || load_map(map, mark)) {
		fprintf(stderr, "insn-profile: need map= (with %s) and out=\n",
			mark);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
}
