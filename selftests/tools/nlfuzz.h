/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nlfuzz: the types of the family description that gen-nlfuzz-spec.py generates from the YNL
 * spec (nlfuzz-spec.h).
 */
#ifndef NLFUZZ_H
#define NLFUZZ_H

#include <stdint.h>

enum nf_type {
	NF_NONE, NF_U8, NF_U16, NF_U32, NF_U64, NF_S8, NF_S16, NF_S32, NF_S64,
	NF_BINARY, NF_FLAG, NF_NEST, NF_STRING, NF_PAD,
};

struct nf_attr {
	const char *name;		/* NULL: no attribute of this number */
	uint8_t type;			/* enum nf_type */
	uint8_t range;			/* min/max given (checks, or an enum) */
	uint8_t multi;
	uint64_t min, max;
	uint64_t mask;			/* enum-as-flags: the valid bits */
	uint16_t exact_len, min_len, max_len;
	int nested;			/* index in nf_sets, or -1 */
};

struct nf_set {
	const char *name;
	uint16_t max;
	const struct nf_attr *attrs;	/* [0..max] */
};

#define NF_LIST_MAX 8

struct nf_op {
	const char *name;
	uint8_t cmd;
	uint8_t has_do, has_dump, notify, admin;
	int set;
	uint16_t do_request[NF_LIST_MAX], do_reply[NF_LIST_MAX];
	uint16_t dump_request[NF_LIST_MAX], dump_reply[NF_LIST_MAX];
	uint8_t n_do_request, n_do_reply, n_dump_request, n_dump_reply;
};

#endif
