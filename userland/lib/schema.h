/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: the kmaglev family's attribute sets and enumerations, as the YNL spec
 * (Documentation/netlink/specs/kmaglev.yaml) describes them. schema.c is generated from the
 * spec by gen-schema.py; they validate replies, name attributes in kernel error messages, give
 * the CLI its value ranges and enum names, and name the fields of the output.
 */
#ifndef KMAGLEV_SCHEMA_H
#define KMAGLEV_SCHEMA_H

#include <stdint.h>

#include "lib/nl.h"

extern const struct kmg_attr_set kmg_schema_kmaglev;	/* top level of every message */
extern const struct kmg_attr_set kmg_schema_service;
extern const struct kmg_attr_set kmg_schema_backend;
extern const struct kmg_attr_set kmg_schema_stats;
extern const struct kmg_attr_set kmg_schema_table;
extern const struct kmg_attr_set kmg_schema_config;
extern const struct kmg_attr_set kmg_schema_global_stats;
extern const struct kmg_attr_set kmg_schema_quota;

extern const struct kmg_enum kmg_enum_hash;
extern const struct kmg_enum kmg_enum_backend_state;
extern const struct kmg_enum kmg_enum_encap;
extern const struct kmg_enum kmg_enum_hook;
extern const struct kmg_enum kmg_enum_service_flags;
extern const struct kmg_enum kmg_enum_quota_scope;
extern const struct kmg_enum kmg_enum_quota_action;
extern const struct kmg_enum kmg_enum_criticality;
extern const struct kmg_enum kmg_enum_overload;
extern const struct kmg_enum kmg_enum_shed_reason;

#endif
