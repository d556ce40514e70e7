/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: keyword parsing. A cursor over argv, word lookup with unique prefixes, and one
 * parser per kind of value. Every parser records an error naming the field and the value
 * ("invalid weight \"70000\": must be 0..65535") and returns KMG_EUSAGE, or returns 0.
 */
#ifndef KMAGLEV_ARGS_H
#define KMAGLEV_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/msg.h"
#include "lib/util.h"

struct kmg_args {
	int argc;
	char **argv;
	int i;
};

static inline void kmg_args_init(struct kmg_args *a, int argc, char **argv)
{
	a->argc = argc;
	a->argv = argv;
	a->i = 0;
}

static inline bool kmg_args_more(const struct kmg_args *a)
{
	return a->i < a->argc;
}

static inline const char *kmg_args_peek(const struct kmg_args *a)
{
	return a->i < a->argc ? a->argv[a->i] : NULL;
}

static inline const char *kmg_args_next(struct kmg_args *a)
{
	return a->i < a->argc ? a->argv[a->i++] : NULL;
}

/* The word after keyword @kw, or an error "missing value after \"weight\"". */
int kmg_args_value(struct kmg_args *a, const char *kw, const char **val);
/* Errors for the keyword loops. */
int kmg_err_dup(const char *kw);
int kmg_err_unknown(const char *word, const char *where);
int kmg_err_missing(const char *what, const char *where);

/*
 * Index of @word in @names[0..n-1]: an exact match, else the only name it is a prefix of.
 * -1 if none matches, -2 if it is ambiguous.
 */
int kmg_lookup(const char *word, const char *const *names, size_t n);

/* Numbers. */
int kmg_arg_u32(const char *field, const char *s, uint32_t min, uint32_t max, uint32_t *out);
int kmg_arg_weight(const char *s, uint32_t *w);
int kmg_arg_table_size(const char *s, uint32_t *m);

/*
 * A number with a unit suffix ("" is the bare number), scaled by the unit and within
 * min..max: 0, -EINVAL (not such a number) or -ERANGE.
 */
struct kmg_unit {
	const char *suffix;
	uint64_t mult;
};

int kmg_parse_scaled(const char *s, const struct kmg_unit *units, size_t nunits, uint64_t min,
		     uint64_t max, uint32_t *out);

/*
 * Durations always carry a unit; a bare number is -EDOM (which unit?).
 * kmg_parse_duration: Nms, Ns, Nm or Nh, at most KMAGLEV_MS_MAX milliseconds.
 * kmg_parse_seconds: Ns, Nm or Nh, 1 s to KMAGLEV_TIMEOUT_MAX seconds.
 */
int kmg_parse_duration(const char *s, uint32_t *ms);
int kmg_parse_seconds(const char *s, uint32_t *sec);
int kmg_arg_duration(const char *field, const char *s, uint32_t *ms);
const char *kmg_fmt_duration(uint32_t ms, char *buf, size_t len);

/* Seeds: 32 hexadecimal digits (optionally 0x-prefixed), the key bytes in order. */
int kmg_parse_seed(const char *s, uint8_t seed[KMG_SEED_BYTES]);
int kmg_arg_seed(const char *s, uint8_t seed[KMG_SEED_BYTES]);
const char *kmg_fmt_seed(const uint8_t seed[KMG_SEED_BYTES], char *buf, size_t len);

/* Enumerations and flags by the spec's names (the hash also takes 5tuple, 3tuple, src). */
int kmg_arg_enum(const char *field, const struct kmg_enum *e, const char *s, uint32_t *out);
const char *kmg_fmt_enum(const struct kmg_enum *e, uint64_t v, char *buf, size_t len);
int kmg_arg_flags(const char *field, const struct kmg_enum *e, const char *s, uint32_t *flags);
const char *kmg_fmt_flags(const struct kmg_enum *e, uint64_t flags, char *buf, size_t len);

/* The value of field @f of @obj into @s (present bit set); a repeated field is an error. */
int kmg_arg_field(const struct kmg_object *obj, const struct kmg_field *f, const char *v,
		  void *s);
/*
 * The keyword @kw: a field of @obj (may be NULL) or one of @words (the command's own), in
 * full, or by a prefix of exactly one of them (of the fields that may be given). Sets *@f
 * to the field, or *@word to the word's index. 0; -ENOENT when it is none of them (not
 * reported: the caller says what it expected); KMG_EUSAGE, reported with the candidates,
 * when the prefix is ambiguous. Every command's keywords abbreviate this way.
 */
int kmg_keyword(const struct kmg_object *obj, const char *const *words, size_t nwords,
		const char *kw, const char *where, const struct kmg_field **f, int *word);
/*
 * If the next word is a keyword of @obj (exact, or a unique prefix of a settable one), take it
 * and its value into @s and set *taken. Otherwise leave it (*taken false, 0 returned).
 */
int kmg_arg_keyword(const struct kmg_object *obj, struct kmg_args *a, const char *where,
		    void *s, bool *taken);

/* Addresses. @field names it in errors; IPv4-mapped IPv6 is refused with a hint. */
enum {
	KMG_ADDR_ALLOW_UNSPEC = 1,	/* 0.0.0.0 and :: */
};
int kmg_arg_addr(const char *field, const char *s, struct kmg_addr *a, unsigned int flags);

/*
 * A service: "ADDR[:PORT][/PROTO]", or "id N" when @allow_id. Sets the key attributes of @s.
 */
int kmg_arg_service(struct kmg_args *a, struct kmg_service *s, bool allow_id);

/*
 * Backend options after the address: weight, state, encap, gre-key, max-conns. Stops at the
 * first word that is not one of them (returns 0 there), so callers can continue with their
 * own keywords. A repeated keyword is an error.
 */
int kmg_arg_backend_opts(struct kmg_args *a, struct kmg_backend *b);
/* Cross-field checks of a backend's options; @is_new: encap defaults to ipip. */
int kmg_check_backend(const struct kmg_backend *b, bool is_new);

/*
 * Command words: @word among @names (unique prefixes accepted), else an error naming @what
 * that points to "kmaglev @object help" (@object may be NULL).
 */
int kmg_pick(const char *word, const char *const *names, size_t n, const char *what,
	     const char *object);

#endif
