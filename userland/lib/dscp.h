/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: the config's dscp-map, the class (criticality) of new flows by their DSCP.
 *
 * The kernel's form is KMAGLEV_DSCP_MAP_LEN bytes, byte N for DSCP N: 0 for the service's own
 * criticality, 1 + a criticality otherwise. The text form is "none" or a comma-separated list
 * of DSCP=CLASS entries ("ef=critical-plus,cs1=sheddable"); a DSCP is 0..63 or one of the
 * standard names (cs0..cs7, af11..af43, ef, le), a CLASS a criticality name. Printed in
 * ascending DSCP order, by name where the DSCP has one. Errors name the entry at fault, in
 * @why, without the field's name: the caller adds it (the CLI's "invalid dscp-map: ...", the
 * daemon's file position).
 */
#ifndef KMAGLEV_DSCP_H
#define KMAGLEV_DSCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kmaglev.h>

/* Room for any map as text: 64 entries of "af11=sheddable-plus," at most. */
#define KMG_DSCP_MAP_TEXT_LEN	(KMAGLEV_DSCP_MAP_LEN * 20 + 1)

/* The DSCP @s names: 0..63 or a standard name (any case); -1 if none. */
int kmg_dscp_value(const char *s);
/* The standard name of DSCP @dscp ("ef"), or NULL. */
const char *kmg_dscp_name(unsigned int dscp);
/* DSCP @dscp as the map prints it: its name, else its number. */
const char *kmg_fmt_dscp(unsigned int dscp, char *buf, size_t len);
/* The class name of map byte @v (1 + a criticality), or NULL for 0 and unknown values. */
const char *kmg_dscp_class(uint8_t v);
/*
 * Map byte @v as a map prints it: its class name, else (a value this program does not know)
 * its number as the kernel has it, @v - 1, in @buf.
 */
const char *kmg_fmt_dscp_class(uint8_t v, char *buf, size_t len);

/*
 * One entry: DSCP word @dscp gets class name @cls in @map. @seen has a bit per DSCP given so
 * far (zero it before the first entry). 0, or -EINVAL with @why: an unknown DSCP or class, or
 * a DSCP given twice (by any of its names).
 */
int kmg_dscp_map_set(uint8_t map[KMAGLEV_DSCP_MAP_LEN], uint64_t *seen, const char *dscp,
		     const char *cls, char *why, size_t len);
/* The text form into @map (all of it, on success only). 0, or -EINVAL with @why. */
int kmg_parse_dscp_map(const char *s, uint8_t map[KMAGLEV_DSCP_MAP_LEN], char *why,
		       size_t len);
/* The text form of @map: "none" when every byte is 0. */
const char *kmg_fmt_dscp_map(const uint8_t map[KMAGLEV_DSCP_MAP_LEN], char *buf, size_t len);

#endif
