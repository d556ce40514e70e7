/* SPDX-License-Identifier: GPL-2.0 */
/* kmaglev CLI: parsing helpers for addresses, service specs and numbers. */
#ifndef KMAGLEV_UTIL_H
#define KMAGLEV_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#define KMG_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct kmg_addr {
	int family;			/* AF_INET or AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
};

/* A service key: VIP, L4 protocol (0 = any) and port (0 = every port). */
struct kmg_svc_key {
	struct kmg_addr addr;
	uint8_t proto;
	uint16_t port;
};

int kmg_parse_addr(const char *s, struct kmg_addr *a);
const char *kmg_fmt_addr(const struct kmg_addr *a, char *buf, size_t len);
int kmg_parse_proto(const char *s, uint8_t *proto);
const char *kmg_fmt_proto(uint8_t proto);
int kmg_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
int kmg_parse_u64(const char *s, uint64_t *out);
int kmg_parse_svc_spec(const char *s, struct kmg_svc_key *k);
/* As kmg_parse_svc_spec(), and on failure *why says what is wrong. */
int kmg_parse_svc_spec_why(const char *s, struct kmg_svc_key *k, const char **why);
const char *kmg_fmt_svc_key(const struct kmg_svc_key *k, char *buf, size_t len);

/*
 * Arrays that grow in powers of two: make room for element @n of *@arr (elements of @size
 * bytes), reallocating when @n is 0 or a power of two. Every array appended to with it must
 * only ever be grown with it. 0, or -ENOMEM with *@arr unchanged.
 */
int kmg_grow(void *arr, unsigned int n, size_t size);
const char *kmg_choices(const char *const *names, unsigned int n, char *buf, size_t len);

/*
 * An address that occurs twice among the @n elements of @arr (@size bytes each, a struct
 * kmg_addr at @off): *@dup points at it, or is NULL. 0, or -ENOMEM.
 */
int kmg_dup_addr(const void *arr, unsigned int n, size_t size, size_t off,
		 const struct kmg_addr **dup);

/* The 16-byte form the kernel sorts and hashes: IPv4 as IPv4-mapped IPv6. */
void kmg_addr_to16(const struct kmg_addr *a, uint8_t out[16]);
void kmg_addr_from16(struct kmg_addr *a, const uint8_t in[16]);
int kmg_addr_cmp(const struct kmg_addr *a, const struct kmg_addr *b);
bool kmg_addr_equal(const struct kmg_addr *a, const struct kmg_addr *b);
bool kmg_addr_is_v4mapped(const struct kmg_addr *a);
bool kmg_addr_is_unspec(const struct kmg_addr *a);
bool kmg_addr_is_multicast(const struct kmg_addr *a);

#endif
