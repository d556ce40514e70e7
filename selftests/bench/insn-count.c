// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count.so: a QEMU TCG plugin for `bench.sh --insns`: how many times the guest executed
 * each instruction address between two markers, exactly.
 *
 *   qemu-system-x86_64 ... -plugin build/bench/insn-count.so,out=FILE
 *
 * Every translated block gets an inline counter (QEMU adds 1 to it each time the block runs,
 * no callback) and the addresses of its instructions. The marker is the no-op `xchg %bx,%bx`
 * (bytes 66 87 db, which compilers do not emit), executed by kmaglev_inject.ko before its
 * first packet and after its last when a run asks for it (mark=1): the first marker opens the
 * window (every counter's value is noted), the second closes it and writes FILE, one line
 * "vaddr count" (hex, decimal) per instruction address executed in the window, after a first
 * line "# window N" (N: the windows closed so far; a later window overwrites FILE).
 * Everything the vCPU runs in the window counts: the injecting thread's packets, and
 * interrupts or other threads if they ran meanwhile.
 *
 * Debian ships QEMU with plugin support but without qemu-plugin.h: the few declarations
 * this needs are below, as QEMU 7.2's plugin API (version 1) defines them.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU's plugin API, version 1 (QEMU 7.2) ---- */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
				    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;
/* ---- end of QEMU's API ---- */

static const uint8_t marker[] = { 0x66, 0x87, 0xdb };	/* xchg %bx,%bx */

/* One translated block: its counter, the counter's value when the window opened, its code. */
struct block {
	uint64_t count;
	uint64_t base;
	size_t n;
	uint64_t vaddr[];
};

static struct block **blocks;
static size_t nblocks, cap;
static bool open_window;
static unsigned int windows;
static char *out_path;

static void die(const char *what)
{
	fprintf(stderr, "insn-count: %s\n", what);
	exit(1);
}

static void window_open(void)
{
	size_t i;

	for (i = 0; i < nblocks; i++)
		blocks[i]->base = blocks[i]->count;
	open_window = true;
}

static void window_close(void)
{
	FILE *f = fopen(out_path, "w");
	size_t i, j;

	if (!f)
		die("cannot write the output file");
	windows++;
	fprintf(f, "# window %u\n", windows);
	for (i = 0; i < nblocks; i++) {
		uint64_t d = blocks[i]->count - blocks[i]->base;

		if (!d)
			continue;
		for (j = 0; j < blocks[i]->n; j++)
			fprintf(f, "%" PRIx64 " %" PRIu64 "\n", blocks[i]->vaddr[j], d);
	}
	if (fclose(f))
		die("cannot write the output file");
	open_window = false;
}

static void on_marker(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	if (open_window)
		window_close();
	else
		window_open();
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct block *b;

	(void)id;
	b = calloc(1, sizeof(*b) + n * sizeof(b->vaddr[0]));
	if (!b)
		die("out of memory");
	b->n = n;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		b->vaddr[i] = qemu_plugin_insn_vaddr(insn);
		if (qemu_plugin_insn_size(insn) == sizeof(marker) &&
		    !memcmp(qemu_plugin_insn_data(insn), marker, sizeof(marker)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
	/* a block translated while the window is open counts from 0, its base */
	if (nblocks == cap) {
		cap = cap ? 2 * cap : 65536;
		blocks = realloc(blocks, cap * sizeof(*blocks));
		if (!blocks)
			die("out of memory");
	}
	blocks[nblocks++] = b;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->count, 1);
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	if (open_window)
		window_close();
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = strdup(argv[i] + 4);
	if (!out_path) {
		fprintf(stderr, "insn-count: usage: -plugin insn-count.so,out=FILE\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
}
