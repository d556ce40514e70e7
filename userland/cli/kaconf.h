/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: keepalived.conf's syntax, for "kmaglev import keepalived" (import_keepalived.c
 * gives the words their meaning). No C library reads it, so this is a small reader of the
 * parts real configurations use, after keepalived's own lib/parser.c:
 *
 * - a line is a keyword and its words; "{" opens a block of lines (on the keyword's line or
 *   the next), "}" closes it; both are words of their own anywhere outside quotes;
 * - "..." is one word, quotes removed; "!" and "#" outside quotes start a comment anywhere in
 *   a word, and so do "\!" and "\#", and a "#" or "!" a parameter brings (keepalived 2.2.7's
 *   binary reads "path /a\#b" as "/a", and "path "/a#b"" as "/a#b"): inside quotes they
 *   are the characters (a backslash before them stays);
 * - "include PATTERN" (and includer, includem, includew, includeb, includea) reads the files
 *   the glob matches (braces too), in order, relative to the including file's directory;
 * - "$NAME=VALUE" defines a parameter, "$NAME" (followed by a blank, ",", ")" or the line's
 *   end) and "${NAME}" are replaced by its value, again and again, an undefined one stays as
 *   it is; ${_PWD}, ${_HASH} and ${_BANG} are predefined.
 *
 * Refused, with FILE:LINE: conditional lines ("@ID ...", "@^ID ...": they depend on keepalived's
 * -i), multiline definitions ("$NAME= \"), sequences ("~SEQ(...)"), ${_INSTANCE} and
 * ${_RANDOM}, unbalanced braces and quotes, includes nested more than 16 deep.
 */
#ifndef KMAGLEV_CLI_KACONF_H
#define KMAGLEV_CLI_KACONF_H

#include <stdbool.h>

/* A line: its words (w[0] the keyword) and, with a block, the lines in it. */
struct kac_node {
	char **w;
	unsigned int nw;
	const char *file;		/* the tree's copy of the name */
	unsigned int line;
	bool block;
	struct kac_node *kid;
	unsigned int nkid;
	bool seen;			/* for the reader: this line has been dealt with */
};

/* Something worth saying that is no error: an include that matched no file. */
struct kac_note {
	const char *file;
	unsigned int line;
	char *text;
};

struct kac_tree {
	struct kac_node root;		/* root.kid: the top-level lines */
	char **files;			/* every file name the nodes point to */
	unsigned int nfiles;
	struct kac_note *notes;
	unsigned int nnotes;
};

/*
 * Read @path and what it includes into @t. 0, or KMG_EFAIL with the error recorded
 * ("FILE:LINE: what"); @t is to be freed with kac_free() either way.
 */
int kac_parse(const char *path, struct kac_tree *t);
void kac_free(struct kac_tree *t);

/*
 * A script's words as keepalived splits misc_path and notify lines for execve(): blanks
 * separate words, '...' and "..." quote, a backslash escapes the next character (\n, \t,
 * \xHH... as in C). 0 and a NULL-terminated *@argv (to be freed with each word), or -EINVAL
 * (an unterminated quote or a trailing backslash) or -ENOMEM.
 */
int kac_split_argv(const char *s, char ***argv);
void kac_argv_free(char **argv);

#endif
