// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for kernel error reporting: a request and the kernel's NLMSG_ERROR (or
 * NLMSG_DONE) reply are built in memory, the reply is processed as if received, and the extack
 * offset, missing-attribute and policy information are turned into an attribute path.
 */
#include <arpa/inet.h>
#include <linux/netlink.h>

#include "helpers.h"
#include "lib/args.h"
#include "lib/schema.h"

#define SEQ 4242

static struct nlmsghdr *request(const char *line, void *buf)
{
	struct targv t = targv(line);
	struct kmg_service s;
	struct nlmsghdr *nlh;

	assert_int_equal(kmg_service_parse(t.argc, t.argv, false, &s), 0);
	targv_free(&t);
	assert_int_equal(kmg_service_req(buf, KMAGLEV_CMD_SERVICE_NEW, 0, &s, &nlh), 0);
	kmg_service_free(&s);
	nlh->nlmsg_seq = SEQ;
	return nlh;
}

/* Offset from the start of @nlh of the @type attribute in the @idx-th service backend. */
static uint32_t backend_attr_off(const struct nlmsghdr *nlh, unsigned int idx, uint16_t type)
{
	const struct nlattr *svc = top_attr(nlh, KMAGLEV_A_SERVICE);
	const struct nlattr *b = nest_attr_n(svc, KMAGLEV_A_SERVICE_BACKEND, idx);
	const struct nlattr *a = nest_attr(b, type);

	assert_non_null(a);
	return (const char *)a - (const char *)nlh;
}

/* NLMSG_ERROR for @req with @error; @capped: only the request's header is echoed. */
static struct nlmsghdr *error_start(void *buf, const struct nlmsghdr *req, int error, bool capped)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsgerr *e;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_ACK_TLVS | (capped ? NLM_F_CAPPED : 0);
	nlh->nlmsg_seq = req->nlmsg_seq;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = error;
	e->msg = *req;
	if (!capped) {
		size_t plen = req->nlmsg_len - sizeof(*req);

		memcpy(mnl_nlmsg_get_payload_tail(nlh), (const char *)req + sizeof(*req), plen);
		nlh->nlmsg_len += MNL_ALIGN(plen);
	}
	return nlh;
}

static void put_range_policy(struct nlmsghdr *nlh, uint64_t min, uint64_t max)
{
	struct nlattr *p = mnl_attr_nest_start(nlh, NLMSGERR_ATTR_POLICY);

	mnl_attr_put_u32(nlh, NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_U32);
	mnl_attr_put_u64(nlh, NL_POLICY_TYPE_ATTR_MIN_VALUE_U, min);
	mnl_attr_put_u64(nlh, NL_POLICY_TYPE_ATTR_MAX_VALUE_U, max);
	mnl_attr_nest_end(nlh, p);
}

static const char *errstr(struct kmg_nl *nl, const struct nlmsghdr *req, int err)
{
	static char buf[512];

	return kmg_nl_errstr(nl, req, err, &kmg_schema_kmaglev, buf, sizeof(buf));
}

static void test_offset_path(void **state)
{
	char rq[4096], rp[4096];
	struct nlmsghdr *req = request("192.0.2.10:80/tcp backend 10.0.0.11 weight 5 "
				       "backend 10.0.0.12 weight 100", rq);
	struct nlmsghdr *err = error_start(rp, req, -ERANGE, true);
	struct kmg_nl nl = { 0 };

	mnl_attr_put_strz(err, NLMSGERR_ATTR_MSG, "integer out of range");
	mnl_attr_put_u32(err, NLMSGERR_ATTR_OFFS, backend_attr_off(req, 1, KMAGLEV_A_BACKEND_WEIGHT));
	put_range_policy(err, 0, 65535);

	kmg_nl_reset_err(&nl);
	assert_int_equal(kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL), -ERANGE);
	assert_string_equal(nl.errmsg, "integer out of range");
	assert_int_equal(nl.erroff, backend_attr_off(req, 1, KMAGLEV_A_BACKEND_WEIGHT));
	assert_true(nl.has_policy);
	assert_string_equal(errstr(&nl, req, -ERANGE),
			    "Error: integer out of range (attribute: service.backend.weight, backend 10.0.0.12, valid range 0..65535)");
}

static void test_offset_uncapped(void **state)
{
	char rq[4096], rp[8192];
	struct nlmsghdr *req = request("192.0.2.10:80 table-size 251", rq);
	struct nlmsghdr *err = error_start(rp, req, -EINVAL, false);
	const struct nlattr *ts = nest_attr(top_attr(req, KMAGLEV_A_SERVICE),
					    KMAGLEV_A_SERVICE_TABLE_SIZE);
	struct kmg_nl nl = { 0 };

	/* an offset into the attribute's payload names the attribute too */
	mnl_attr_put_u32(err, NLMSGERR_ATTR_OFFS, (const char *)ts - (const char *)req + 4);
	kmg_nl_reset_err(&nl);
	assert_int_equal(kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL), -EINVAL);
	assert_string_equal(nl.errmsg, "");
	assert_string_equal(errstr(&nl, req, -EINVAL),
			    "Error: Invalid argument (attribute: service.table-size)");
}

static void test_policy_text(void **state)
{
	char rq[4096], rp[4096];
	struct nlmsghdr *req = request("192.0.2.10:80 flags echo", rq);
	const struct nlattr *svc = top_attr(req, KMAGLEV_A_SERVICE);
	uint32_t port = (const char *)nest_attr(svc, KMAGLEV_A_SERVICE_PORT) - (const char *)req;
	uint32_t flags = (const char *)nest_attr(svc, KMAGLEV_A_SERVICE_FLAGS) - (const char *)req;
	struct kmg_nl nl = { 0 };
	struct nlmsghdr *err;
	struct nlattr *p;

	/* a plain u16: the kernel reports its full range, which says nothing */
	err = error_start(rp, req, -ERANGE, true);
	mnl_attr_put_strz(err, NLMSGERR_ATTR_MSG, "invalid attribute length");
	mnl_attr_put_u32(err, NLMSGERR_ATTR_OFFS, port);
	p = mnl_attr_nest_start(err, NLMSGERR_ATTR_POLICY);
	mnl_attr_put_u32(err, NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_U16);
	mnl_attr_put_u64(err, NL_POLICY_TYPE_ATTR_MIN_VALUE_U, 0);
	mnl_attr_put_u64(err, NL_POLICY_TYPE_ATTR_MAX_VALUE_U, UINT16_MAX);
	mnl_attr_nest_end(err, p);
	kmg_nl_reset_err(&nl);
	kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL);
	assert_string_equal(errstr(&nl, req, -ERANGE),
			    "Error: invalid attribute length (attribute: service.port)");

	/* a mask */
	err = error_start(rp, req, -EINVAL, true);
	mnl_attr_put_strz(err, NLMSGERR_ATTR_MSG, "reserved bit set");
	mnl_attr_put_u32(err, NLMSGERR_ATTR_OFFS, flags);
	p = mnl_attr_nest_start(err, NLMSGERR_ATTR_POLICY);
	mnl_attr_put_u32(err, NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_U32);
	mnl_attr_put_u64(err, NL_POLICY_TYPE_ATTR_MASK, 7);
	mnl_attr_nest_end(err, p);
	kmg_nl_reset_err(&nl);
	kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL);
	assert_string_equal(errstr(&nl, req, -EINVAL),
			    "Error: reserved bit set (attribute: service.flags, valid bits 0x7)");

	/* an exact length */
	err = error_start(rp, req, -EINVAL, true);
	mnl_attr_put_u32(err, NLMSGERR_ATTR_OFFS, port);
	p = mnl_attr_nest_start(err, NLMSGERR_ATTR_POLICY);
	mnl_attr_put_u32(err, NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_BINARY);
	mnl_attr_put_u32(err, NL_POLICY_TYPE_ATTR_MIN_LENGTH, 16);
	mnl_attr_put_u32(err, NL_POLICY_TYPE_ATTR_MAX_LENGTH, 16);
	mnl_attr_nest_end(err, p);
	kmg_nl_reset_err(&nl);
	kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL);
	assert_string_equal(errstr(&nl, req, -EINVAL),
			    "Error: Invalid argument (attribute: service.port, length must be 16 bytes)");
}

static void test_offset_nest_and_outside(void **state)
{
	char rq[4096];
	struct nlmsghdr *req = request("[2001:db8::1]:443/udp backend 2001:db8::99", rq);
	const struct nlattr *svc = top_attr(req, KMAGLEV_A_SERVICE);
	const struct nlattr *b = nest_attr(svc, KMAGLEV_A_SERVICE_BACKEND);
	struct kmg_attr_walk w;
	char path[128];

	/* the nest itself */
	assert_int_equal(kmg_nl_attr_at(req, sizeof(struct genlmsghdr), &kmg_schema_kmaglev,
					(const char *)b - (const char *)req, &w), 0);
	assert_int_equal(w.depth, 2);
	assert_string_equal(kmg_nl_fmt_walk(&w, path, sizeof(path)),
			    "service.backend, backend 2001:db8::99");
	/* the top-level nest */
	assert_int_equal(kmg_nl_attr_at(req, sizeof(struct genlmsghdr), &kmg_schema_kmaglev,
					(const char *)svc - (const char *)req, &w), 0);
	assert_string_equal(kmg_nl_fmt_walk(&w, path, sizeof(path)), "service");
	/* the address of the service */
	assert_int_equal(kmg_nl_attr_at(req, sizeof(struct genlmsghdr), &kmg_schema_kmaglev,
					(const char *)nest_attr(svc, KMAGLEV_A_SERVICE_ADDR6) -
					(const char *)req, &w), 0);
	assert_string_equal(kmg_nl_fmt_walk(&w, path, sizeof(path)), "service.addr6");
	/* offsets in the headers or past the end name nothing */
	assert_int_equal(kmg_nl_attr_at(req, sizeof(struct genlmsghdr), &kmg_schema_kmaglev, 4, &w),
			 -ENOENT);
	assert_int_equal(kmg_nl_attr_at(req, sizeof(struct genlmsghdr), &kmg_schema_kmaglev,
					req->nlmsg_len, &w), -ENOENT);
}

static void test_missing_attr(void **state)
{
	char rq[4096], rp[4096];
	struct nlmsghdr *req = request("192.0.2.10:80 backend 10.0.0.5", rq);
	const struct nlattr *svc = top_attr(req, KMAGLEV_A_SERVICE);
	const struct nlattr *b = nest_attr(svc, KMAGLEV_A_SERVICE_BACKEND);
	struct nlmsghdr *err;
	struct kmg_nl nl = { 0 };

	/* missing inside a nest */
	err = error_start(rp, req, -EINVAL, true);
	mnl_attr_put_u32(err, NLMSGERR_ATTR_MISS_TYPE, KMAGLEV_A_BACKEND_WEIGHT);
	mnl_attr_put_u32(err, NLMSGERR_ATTR_MISS_NEST, (const char *)b - (const char *)req);
	kmg_nl_reset_err(&nl);
	assert_int_equal(kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL), -EINVAL);
	assert_int_equal(nl.miss_type, KMAGLEV_A_BACKEND_WEIGHT);
	assert_string_equal(errstr(&nl, req, -EINVAL),
			    "Error: Invalid argument (missing attribute: service.backend.weight, backend 10.0.0.5)");

	/* missing at the top level */
	err = error_start(rp, req, -EINVAL, true);
	mnl_attr_put_strz(err, NLMSGERR_ATTR_MSG, "backend required");
	mnl_attr_put_u32(err, NLMSGERR_ATTR_MISS_TYPE, KMAGLEV_A_BACKEND);
	kmg_nl_reset_err(&nl);
	assert_int_equal(kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL), -EINVAL);
	assert_string_equal(errstr(&nl, req, -EINVAL),
			    "Error: backend required (missing attribute: backend)");

	/* missing in the service nest */
	err = error_start(rp, req, -EINVAL, true);
	mnl_attr_put_u32(err, NLMSGERR_ATTR_MISS_TYPE, KMAGLEV_A_SERVICE_ID);
	mnl_attr_put_u32(err, NLMSGERR_ATTR_MISS_NEST, (const char *)svc - (const char *)req);
	kmg_nl_reset_err(&nl);
	kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL);
	assert_string_equal(errstr(&nl, req, -EINVAL),
			    "Error: Invalid argument (missing attribute: service.id)");
}

static void test_plain_errors(void **state)
{
	char rq[4096], rp[4096];
	struct nlmsghdr *req = request("192.0.2.10:80", rq);
	struct nlmsghdr *err;
	struct kmg_nl nl = { 0 };

	err = error_start(rp, req, -EEXIST, true);
	mnl_attr_put_strz(err, NLMSGERR_ATTR_MSG, "service exists");
	kmg_nl_reset_err(&nl);
	assert_int_equal(kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL), -EEXIST);
	assert_string_equal(errstr(&nl, req, -EEXIST), "Error: service exists");

	err = error_start(rp, req, -EPERM, true);
	err->nlmsg_flags &= ~NLM_F_ACK_TLVS;
	kmg_nl_reset_err(&nl);
	assert_int_equal(kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL), -EPERM);
	assert_string_equal(errstr(&nl, req, -EPERM),
			    "Error: Operation not permitted (changes need CAP_NET_ADMIN)");

	/* an ack: no error, processing ends */
	err = error_start(rp, req, 0, true);
	kmg_nl_reset_err(&nl);
	assert_int_equal(kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL), 0);

	/* a reply to another request is not taken for ours */
	err = error_start(rp, req, -EEXIST, true);
	err->nlmsg_seq = SEQ + 1;
	assert_true(kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL) < 0);
}

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(*(int *)data)++;
	return MNL_CB_OK;
}

static void test_dump_done_error(void **state)
{
	char rq[4096], rp[4096];
	struct nlmsghdr *req = request("192.0.2.10:80", rq), *nlh;
	struct kmg_nl nl = { 0 };
	int n = 0, e = -EPERM;
	size_t len;

	/* one data message, then NLMSG_DONE carrying an error and a message */
	nlh = kmg_req_start(rp, KMAGLEV_CMD_SERVICE_GET, NLM_F_MULTI);
	nlh->nlmsg_type = 0x20;
	nlh->nlmsg_seq = SEQ;
	len = MNL_ALIGN(nlh->nlmsg_len);
	nlh = mnl_nlmsg_put_header(rp + len);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI | NLM_F_ACK_TLVS;
	nlh->nlmsg_seq = SEQ;
	memcpy(mnl_nlmsg_put_extra_header(nlh, sizeof(int)), &e, sizeof(int));
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "dump interrupted");
	len += nlh->nlmsg_len;
	kmg_nl_reset_err(&nl);
	assert_int_equal(kmg_nl_process(&nl, rp, len, SEQ, 0, count_cb, &n), -EPERM);
	assert_int_equal(n, 1);
	assert_string_equal(errstr(&nl, req, -EPERM), "Error: dump interrupted");
}

/* A kernel that takes backends only inside the service nest refuses a big request. */
static void test_big_request_refused(void **state)
{
	struct kmg_service s = { 0 };
	struct kmg_svc_key k;
	struct nlmsghdr *req, *err;
	struct kmg_nl nl = { 0 };
	char rp[4096];
	unsigned int i;
	void *rq;

	assert_int_equal(kmg_parse_svc_spec("192.0.2.10:80", &k), 0);
	kmg_service_set_key(&s, &k);
	for (i = 0; i < 6000; i++) {
		struct kmg_backend *b = kmg_backend_append(&s.be, &s.nbe);
		struct kmg_addr a = { .family = AF_INET };

		a.v4.s_addr = htonl(0x0a000000 + i + 1);
		kmg_backend_set_addr(b, &a);
	}
	rq = kmg_req_buf(&s);
	assert_int_equal(kmg_service_req(rq, KMAGLEV_CMD_SERVICE_NEW, 0, &s, &req), 0);
	req->nlmsg_seq = SEQ;
	/* what genetlink says of an attribute beyond the op's policy */
	err = error_start(rp, req, -EINVAL, true);
	mnl_attr_put_strz(err, NLMSGERR_ATTR_MSG, "Unknown attribute type");
	mnl_attr_put_u32(err, NLMSGERR_ATTR_OFFS,
			 (const char *)top_attr(req, KMAGLEV_A_BACKEND) - (const char *)req);
	kmg_nl_reset_err(&nl);
	assert_int_equal(kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL), -EINVAL);
	kmg_err(KMG_EFAIL, "%s", errstr(&nl, req, -EINVAL));
	kmg_service_big_hint(&nl, req, &s);
	assert_string_equal(kmg_errmsg(),
			    "Error: Unknown attribute type (attribute: backend, backend 10.0.0.1); 6000 backends do not fit in the service attribute (64 KiB) and this kernel takes no others: give at most 5418 here and add the rest with \"kmaglev backend add\"");

	/* an error about something else gets no hint */
	nl.erroff = (const char *)top_attr(req, KMAGLEV_A_SERVICE) - (const char *)req;
	kmg_err(KMG_EFAIL, "plain");
	kmg_service_big_hint(&nl, req, &s);
	assert_string_equal(kmg_errmsg(), "plain");
	free(rq);
	kmg_service_free(&s);
}

/* The config-set request for the kmaglev config set arguments @line, in @buf. */
static struct nlmsghdr *config_request(const char *line, void *buf)
{
	struct targv t = targv(line);
	struct kmg_config c;
	struct nlmsghdr *nlh;

	assert_int_equal(kmg_config_parse(t.argc, t.argv, &c), 0);
	targv_free(&t);
	kmg_config_req(buf, KMAGLEV_CMD_CONFIG_SET, &c, &nlh);
	nlh->nlmsg_seq = SEQ;
	return nlh;
}

/*
 * The kernel refuses config-set @req with @error at the config attribute @type, saying @msg
 * (nothing if NULL) and, when @max is not 0, giving the policy's range @min..@max: the error
 * reads @want.
 */
static void config_refused(const struct nlmsghdr *req, uint16_t type, int error, const char *msg,
			   uint64_t min, uint64_t max, const char *want)
{
	char rp[4096];
	const struct nlattr *a = nest_attr(top_attr(req, KMAGLEV_A_CONFIG), type);
	struct nlmsghdr *err;
	struct kmg_nl nl = { 0 };

	assert_non_null(a);
	err = error_start(rp, req, error, true);
	if (msg)
		mnl_attr_put_strz(err, NLMSGERR_ATTR_MSG, msg);
	mnl_attr_put_u32(err, NLMSGERR_ATTR_OFFS, (const char *)a - (const char *)req);
	if (max)
		put_range_policy(err, min, max);
	kmg_nl_reset_err(&nl);
	assert_int_equal(kmg_nl_process(&nl, rp, err->nlmsg_len, SEQ, 0, NULL, NULL), error);
	assert_string_equal(errstr(&nl, req, error), want);
}

/* A config-set request refused at a connection-table setting: the path names it. */
static void test_config_path(void **state)
{
	void *rq = kmg_req_buf(NULL);
	struct nlmsghdr *req = config_request("conn-max 64 timeout-tcp-syn 5s flood-rate 10", rq);

	config_refused(req, KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN, -ERANGE, "integer out of range",
		       1, KMAGLEV_TIMEOUT_MAX,
		       "Error: integer out of range (attribute: config.timeout-tcp-syn, valid range 1..604800)");

	/* another of the new attributes, without a policy */
	config_refused(req, KMAGLEV_A_CONFIG_FLOOD_RATE, -EINVAL, NULL, 0, 0,
		       "Error: Invalid argument (attribute: config.flood-rate)");
	free(rq);
}

/* A quota setting the kernel refuses (rst without nf_reject): the path names it. */
static void test_config_quota_path(void **state)
{
	void *rq = kmg_req_buf(NULL);
	struct nlmsghdr *req = config_request("quota-rate 10 quota-action rst", rq);

	config_refused(req, KMAGLEV_A_CONFIG_QUOTA_ACTION, -EOPNOTSUPP,
		       "quota-action rst needs CONFIG_NF_REJECT_IPV4/6", 0, 0,
		       "Error: quota-action rst needs CONFIG_NF_REJECT_IPV4/6 (attribute: config.quota-action)");

	/* out of the spec's range, with the policy's bounds */
	config_refused(req, KMAGLEV_A_CONFIG_QUOTA_RATE, -ERANGE, "integer out of range",
		       0, KMAGLEV_QUOTA_RATE_MAX,
		       "Error: integer out of range (attribute: config.quota-rate, valid range 0..1000000)");
	free(rq);
}

/*
 * Load-shedding settings the kernel refuses against the values it has (a low mark not below
 * its high one, a dscp-map byte it does not know): the path names the attribute.
 */
static void test_config_shed_path(void **state)
{
	void *rq = kmg_req_buf(NULL);
	struct nlmsghdr *req = config_request("shed-load-low 900 dscp-map ef=critical", rq);

	config_refused(req, KMAGLEV_A_CONFIG_SHED_LOAD_LOW, -EINVAL,
		       "config shed-load-low must be below shed-load-high", 0, 0,
		       "Error: config shed-load-low must be below shed-load-high (attribute: config.shed-load-low)");
	config_refused(req, KMAGLEV_A_CONFIG_DSCP_MAP, -EINVAL,
		       "config dscp-map: a byte is above 4 (1 + sheddable)", 0, 0,
		       "Error: config dscp-map: a byte is above 4 (1 + sheddable) (attribute: config.dscp-map)");
	free(rq);
}

/* A dump part flagged NLM_F_DUMP_INTR: the flag is taken off so that the dump is read on. */
static void test_dump_intr(void **state)
{
	char buf[2 * MNL_ALIGN(sizeof(struct nlmsghdr))] = { 0 };
	struct nlmsghdr *a = (struct nlmsghdr *)buf;
	struct nlmsghdr *b = (struct nlmsghdr *)(buf + MNL_ALIGN(sizeof(*a)));

	(void)state;
	a->nlmsg_len = sizeof(*a);
	b->nlmsg_len = sizeof(*b);
	a->nlmsg_flags = NLM_F_MULTI;
	b->nlmsg_flags = NLM_F_MULTI | NLM_F_DUMP_INTR;
	assert_true(kmg_nl_dump_intr(buf, sizeof(buf)));
	assert_int_equal(a->nlmsg_flags, NLM_F_MULTI);
	assert_int_equal(b->nlmsg_flags, NLM_F_MULTI);
	assert_false(kmg_nl_dump_intr(buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offset_path),
		cmocka_unit_test(test_offset_uncapped),
		cmocka_unit_test(test_policy_text),
		cmocka_unit_test(test_offset_nest_and_outside),
		cmocka_unit_test(test_missing_attr),
		cmocka_unit_test(test_plain_errors),
		cmocka_unit_test(test_dump_done_error),
		cmocka_unit_test(test_dump_intr),
		cmocka_unit_test(test_big_request_refused),
		cmocka_unit_test(test_config_path),
		cmocka_unit_test(test_config_quota_path),
		cmocka_unit_test(test_config_shed_path),
	};

	return cmocka_run_group_tests_name("extack", tests, NULL, NULL);
}
