/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: what the config loader's files share. The YAML node tree gives positions
 * (libcyaml loads the values but gives none); the units and limits are the file format's.
 */
#ifndef KMAGLEV_DAEMON_CONFIG_INT_H
#define KMAGLEV_DAEMON_CONFIG_INT_H

#include <stddef.h>

#include "daemon/config.h"

enum kmd_ynode_type {
	KMD_YSCALAR,
	KMD_YMAP,
	KMD_YSEQ,
};

struct kmd_ynode {
	enum kmd_ynode_type type;
	struct kmd_loc loc;
	char *str;			/* scalar */
	struct kmd_ynode **kids;	/* mapping values or sequence entries */
	struct kmd_ynode **keys;	/* mapping keys (scalars) */
	unsigned int n;
};

struct kmd_ytree {
	struct kmd_ynode *root;		/* NULL: an empty file */
	struct kmd_ynode **all;
	unsigned int nall;
};

/*
 * The tree of @text (one document). 0; -EINVAL with @problem and @ploc set when the text is
 * not YAML; -ENOMEM.
 */
int kmd_ytree_build(struct kmd_ytree *t, const char *text, size_t len, char *problem,
		    size_t plen, struct kmd_loc *ploc);
void kmd_ytree_free(struct kmd_ytree *t);
/* The value of @key in mapping @map (and where the key is), or NULL. */
struct kmd_ynode *kmd_ynode_get(const struct kmd_ynode *map, const char *key,
				struct kmd_loc *keyloc);
/* Entry @i of sequence @seq, or NULL. */
struct kmd_ynode *kmd_ynode_at(const struct kmd_ynode *seq, unsigned int i);

/*
 * libcyaml's error log (its message and backtrace) as "FILE:LINE:COL: PATH: MESSAGE" on @err.
 * The loader does this when libcyaml refuses what the shape check let through.
 */
void kmd_config_cyaml_error(const char *name, const char *log, FILE *err);

/* Defaults and limits of the file format (config.h and Documentation/daemon.rst). */
#define KMD_OWNER_DEFAULT		"kmaglev-daemon"
#define KMD_OWNER_MAX			31
#define KMD_DRAIN_DEFAULT_MS		10000
#define KMD_METRICS_ADDR_DEFAULT	"127.0.0.1"
#define KMD_METRICS_PORT_DEFAULT	9742
#define KMD_SOCKET_DEFAULT		"/run/kmaglev/daemon.sock"
#define KMD_WEIGHT_DEFAULT		1
#define KMD_WINDOW_DEFAULT_MS		30000
#define KMD_RAMP_DEFAULT		100

#define KMD_INTERVAL_DEFAULT_MS		2000
#define KMD_INTERVAL_MIN_MS		100
#define KMD_INTERVAL_MAX_MS		3600000
#define KMD_TIMEOUT_DEFAULT_MS		1000
#define KMD_TIMEOUT_MIN_MS		10
#define KMD_FAST_MIN_MS			100
#define KMD_RISE_DEFAULT		2
#define KMD_FALL_DEFAULT		3
#define KMD_RISE_FALL_MAX		1000
#define KMD_CHECK_NAME_MAX		63

#define KMD_BGP_PORT_DEFAULT		179
#define KMD_BGP_HOLD_DEFAULT_S		90
#define KMD_BGP_LOCAL_PREF_DEFAULT	100
#define KMD_BGP_PASSWORD_MAX		80	/* TCP_MD5SIG_MAXKEYLEN */
#define KMD_BGP_GR_TIME_DEFAULT_S	120
#define KMD_BGP_SHUTDOWN_DEFAULT_MS	2000

#endif
