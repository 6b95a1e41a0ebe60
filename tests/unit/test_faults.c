/*
 * test_faults.c - faults of the file system under the index, injected with
 * the fault VFS (tests/support/cgfault.h) beneath the real gateway, nodes
 * and SQLite files: a full disk or a read-only cache never hides an index
 * that exists (issue 15, finding 4).  The sync that cannot write fails for
 * its source alone, the answer names the source and why, the node logs it,
 * and the index serves its last generation until the fault ends.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "cgfault.h"
#include "cgtest.h"
#include "common/cg_buf.h"
#include "common/cg_json.h"
#include "gateway/api.h"
#include "gateway/gateway.h"

/* The nodes' log lines, gathered from their threads. */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static cg_buf log_text;

static void
log_line(void *ctx, const char *level, const char *component, const char *msg)
{
	(void)ctx;
	pthread_mutex_lock(&log_mu);
	(void)cg_buf_printf(&log_text, "%s %s %s\n", level, component, msg);
	pthread_mutex_unlock(&log_mu);
}

static bool
logged(const char *a, const char *b)
{
	bool found = false;

	pthread_mutex_lock(&log_mu);
	for (char *line = log_text.data; line != NULL && *line && !found;) {
		char *nl = strchr(line, '\n');

		if (nl != NULL)
			*nl = '\0';
		found = strstr(line, a) != NULL && strstr(line, b) != NULL;
		if (nl != NULL)
			*nl = '\n';
		line = nl != NULL ? nl + 1 : NULL;
	}
	pthread_mutex_unlock(&log_mu);
	return found;
}

struct gw {
	cg_config cfg;
	cg_gateway *g;
};

static void
gw_open(struct gw *w, const char *ws, const char *cache)
{
	cg_gateway_opts go = {0};
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(
	    cg_config_for_workspace(&w->cfg, ws, cache, false, 5000, &err), 0);
	go.config = &w->cfg;
	go.on_demand = true; /* syncs when asked, as the CLI's */
	go.log = log_line;
	assert_int_equal(cg_gateway_open(&w->g, &go, &err), 0);
}

static void
gw_close(struct gw *w)
{
	cg_gateway_free(w->g);
	cg_config_fini(&w->cfg);
}

/* The sync report; *failed gets how many sources it lists as failed and
 * the first one's message lands in why. */
static void
gw_sync(struct gw *w, int *failed, char *why, size_t n)
{
	json_t *all = NULL;
	cg_err err;
	size_t i;
	const json_t *node;

	cg_err_clear(&err);
	assert_int_equal(cg_gateway_sync(w->g, &all, &err), 0);
	*failed = 0;
	why[0] = '\0';
	json_array_foreach(json_object_get(all, "nodes"), i, node) {
		const char *src;
		const json_t *f;

		json_object_foreach(
		    json_object_get(json_object_get(node, "result"), "failed"),
		    src, f) {
			if ((*failed)++ == 0)
				(void)snprintf(why, n, "%s: %s", src,
				               cg_json_str(f, "message"));
		}
	}
	json_decref(all);
}

static json_t *
gw_search(struct gw *w, const char *q)
{
	json_t *args = json_pack("{s:s}", "q", q);
	json_t *ans = NULL;
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(
	    cg_api_call(cg_gateway_fed(w->g), "search", args, &ans, &err), 0);
	json_decref(args);
	return ans;
}

static size_t
nhits(const json_t *ans)
{
	return json_array_size(json_object_get(ans, "hits"));
}

/* The followup of kind about source, or NULL (borrowed). */
static const json_t *
followup(const json_t *ans, const char *kind, const char *source)
{
	size_t i;
	const json_t *f;

	json_array_foreach(json_object_get(ans, "followups"), i, f)
		if (strcmp(cg_json_str(f, "kind"), kind) == 0 &&
		    strcmp(cg_json_str(f, "source"), source) == 0)
			return f;
	return NULL;
}

static void
make_workspace(const char *ws)
{
	cgt_page(ws, ".guild/wiki/standards/refunds.md",
	         "type: standard\nupdated_at: 2026-10-01",
	         "# Refunds\n\nA refund is possible within 30 days.\n");
	cgt_page(ws, "billing/.guild/wiki/concepts/seat.md",
	         "type: concept\nupdated_at: 2026-10-01",
	         "# Seat\n\nA seat is billed monthly; no refund.\n");
}

/* A cache whose files the fault meets cold: the wal-index (-shm) and the
 * empty WAL are gone (a copied or restored cache, a cleaned /tmp), so an
 * open must create them, which a full or read-only file system refuses. */
static void
drop_wal_files(const char *cache)
{
	cgt_sh("rm -f %s/*/gen-*.db-shm %s/*/gen-*.db-wal", cache, cache);
}

static void
check_fault(enum cgf_mode mode, const char *tag)
{
	char *ws = cgt_tmpdir(tag);
	char *cache = cgt_tmpdir(tag);
	unsigned before;
	struct gw w;
	json_t *ans;
	const json_t *f;
	char why[1024];
	int failed;

	cgf_set(CGF_OFF);
	make_workspace(ws);
	gw_open(&w, ws, cache);
	gw_sync(&w, &failed, why, sizeof(why));
	assert_int_equal(failed, 0);
	ans = gw_search(&w, "refund");
	assert_int_equal(nhits(ans), 2);
	json_decref(ans);
	gw_close(&w);

	drop_wal_files(cache);
	/* A page the faulty disk will not let the index take in. */
	cgt_page(ws, ".guild/wiki/concepts/chargeback.md",
	         "type: concept\nupdated_at: 2026-10-02",
	         "# Chargeback\n\nA refund the bank forces: a zebracorn.\n");
	before = cgf_injected();
	cgf_set(mode);
	gw_open(&w, ws, cache);

	/* The sync fails for each source (what `index` counts to exit 1),
	 * naming it; the node logs it. */
	gw_sync(&w, &failed, why, sizeof(why));
	assert_int_equal(failed, 2);
	assert_non_null(strstr(why, "index"));
	assert_true(logged("sync failed", "source=root"));
	assert_true(logged("sync failed", "source=billing"));

	/* The index that exists answers, and the answer says it could not
	 * be updated, naming the source and why. */
	ans = gw_search(&w, "refund");
	assert_int_equal(nhits(ans), 2);
	f = followup(ans, "source_not_updated", "root");
	assert_non_null(f);
	assert_non_null(strstr(cg_json_str(f, "message"), "root"));
	assert_non_null(followup(ans, "source_not_updated", "billing"));
	json_decref(ans);
	ans = gw_search(&w, "zebracorn");
	assert_int_equal(nhits(ans), 0);
	json_decref(ans);
	assert_true(cgf_injected() > before);

	/* The fault ends: the next sync takes the page in and the note
	 * goes. */
	cgf_set(CGF_OFF);
	gw_sync(&w, &failed, why, sizeof(why));
	assert_int_equal(failed, 0);
	ans = gw_search(&w, "zebracorn");
	assert_int_equal(nhits(ans), 1);
	assert_null(followup(ans, "source_not_updated", "root"));
	json_decref(ans);
	gw_close(&w);
	cgt_rm(ws);
	cgt_rm(cache);
	free(ws);
	free(cache);
}

static void
test_full_disk(void **state)
{
	(void)state;
	check_fault(CGF_FULL, "full");
}

static void
test_read_only(void **state)
{
	(void)state;
	check_fault(CGF_READONLY, "readonly");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_disk),
	    cmocka_unit_test(test_read_only),
	};
	int rc;

	cgf_install();
	cg_buf_init(&log_text, 1 << 24);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	cg_buf_fini(&log_text);
	return rc;
}
