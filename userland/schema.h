/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: the kmaglev family's attribute sets (names and types, as in
 * Documentation/netlink/specs/kmaglev.yaml), for validating replies and naming attributes in
 * kernel error messages.
 */
#ifndef KMAGLEV_SCHEMA_H
#define KMAGLEV_SCHEMA_H

#include "nl.h"

extern const struct kmg_attr_set kmg_schema_kmaglev;	/* top level of every message */
extern const struct kmg_attr_set kmg_schema_service;
extern const struct kmg_attr_set kmg_schema_backend;
extern const struct kmg_attr_set kmg_schema_stats;
extern const struct kmg_attr_set kmg_schema_table;
extern const struct kmg_attr_set kmg_schema_config;
extern const struct kmg_attr_set kmg_schema_global_stats;

#endif
