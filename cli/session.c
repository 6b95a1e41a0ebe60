/*
 * session.c - where a CLI command's requests go.  Embedded (--workspace
 * DIR or --config FILE): a gateway is opened in this process — its nodes
 * answer on this thread (gateway.h, direct: no socket, no thread per
 * node), remote nodes are dialled — and the
 * tool runs through the same table the HTTP API uses.  Remote (--gateway
 * URL): the tool is a GET on the running gateway's /v1/<tool>, with
 * "Authorization: Bearer" from --token or CORPUS_GW_TOKEN (the option
 * wins; the secret is never printed), and `corpus-gw mcp --gateway`
 * POSTs each MCP message to its /mcp.  Either way
 * a command sees one JSON answer, and an error the same code: the
 * gateway's error names are read back with cg_code_from_name, so both
 * paths exit alike (tests/integration/test_cli_errors.c).  A command's
 * --workspace-name values become the "workspace" argument of every tool
 * call that takes one (and gives none), embedded or remote alike.  It
 * must not keep an error map of its own.
 *
 * A running gateway, by default (the read commands: their option table
 * holds --no-gateway, cli.h's CLI_GATEWAY_OPT), in this order:
 * - --gateway ADDR, or else CORPUS_GW_GATEWAY=ADDR when neither
 *   --workspace nor --config is given (an option on the command line
 *   wins over the environment): that gateway, an http:// URL or
 *   unix:PATH.  Decision: a named gateway that does not answer is an
 *   error (exit 1, naming it), never a silent fallback: the user asked
 *   for it, and an embedded answer could differ (another roster).
 * - --no-gateway or CORPUS_GW_NO_GATEWAY (not empty, not "0"): embedded.
 * - the local socket of a gateway serving exactly the roster this command
 *   would open (gateway/local.h: same workspaces by name and real path,
 *   same remote nodes), found under $XDG_RUNTIME_DIR.  It must answer
 *   /readyz within FOUND_PROBE_MS, and the tool within FOUND_TIMEOUT_MS,
 *   with a JSON object; a gateway gone (a stale socket), hung or
 *   answering garbage is a note on stderr and the command runs embedded,
 *   the answer's evidence saying why (gateway_fallback).  Over the socket
 *   no sync runs: the gateway keeps its indexes current (its watchers
 *   may trail a file written in the same millisecond).
 * - else embedded.
 * An answer that came through a gateway says so in evidence.via
 * ("gateway unix:PATH" or "gateway URL"); embedded answers carry no via,
 * so they are unchanged.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "cli/cli.h"
#include "common/cg_buf.h"
#include "common/cg_json.h"
#include "conf/workspace.h"
#include "gateway/api.h"
#include "gateway/local.h"

#define FOUND_PROBE_MS   2000  /* a found gateway's /readyz */
#define FOUND_TIMEOUT_MS 15000 /* a found gateway's answer to a tool */
#define NAMED_TIMEOUT_MS 60000 /* a named gateway's answer */

/* The bearer token for --gateway: --token, else CORPUS_GW_TOKEN, else
 * none.  It must be one header value: no control characters. */
static int
session_token(cli_session *s, const cli_args *a, cg_err *err)
{
	const char *t = cli_get(a, "token");

	if (t == NULL)
		t = getenv("CORPUS_GW_TOKEN");
	if (t == NULL || *t == '\0')
		return 0;
	for (const char *p = t; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return cg_err_set(
			    err, CG_EINVAL,
			    "the token holds a control character");
	if (asprintf(&s->auth, "Authorization: Bearer %s", t) < 0) {
		s->auth = NULL;
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	return 0;
}

/* The embedded gateway over the loaded s->cfg. */
static int
open_embedded(cli_session *s, cg_err *err)
{
	cg_gateway_opts go = {0};
	int rc;

	go.config = &s->cfg;
	go.on_demand = true;
	go.oneshot = s->oneshot;
	go.direct = s->oneshot; /* no thread or socket per node */
	go.log = cli_log;
	go.log_ctx = &s->log;
	go.log_debug = s->log.min == CLI_LOG_DEBUG;
	rc = cg_gateway_open(&s->gw, &go, err);
	if (rc == 0)
		s->fed = cg_gateway_fed(s->gw);
	return rc;
}

/* Requests go to the gateway at addr: an http(s):// URL, or unix:PATH
 * (HTTP over that socket). */
static int
set_remote(cli_session *s, const char *addr, cg_err *err)
{
	const char *path = strncmp(addr, "unix:", 5) == 0 ? addr + 5 : NULL;

	if (path != NULL && (path[0] != '/' || strlen(path) >= 108))
		return cg_err_set(err, CG_EINVAL,
		                  "gateway '%s': expected unix:/ABSOLUTE/PATH "
		                  "(under 108 bytes)",
		                  addr);
	s->addr = strdup(addr);
	s->remote = strdup(path ? "http://localhost" : addr);
	s->sock = path ? strdup(path) : NULL;
	if (s->addr == NULL || s->remote == NULL || (path && s->sock == NULL))
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	return 0;
}

static void
drop_remote(cli_session *s)
{
	free(s->remote);
	free(s->addr);
	free(s->sock);
	s->remote = s->addr = s->sock = NULL;
	s->found = false;
}

/* Whether this command looks for a running gateway: its table holds
 * --no-gateway, not given, and CORPUS_GW_NO_GATEWAY is unset, empty or
 * "0". */
static bool
discovers(const cli_args *a)
{
	const char *no = getenv("CORPUS_GW_NO_GATEWAY");
	bool has = false;

	for (size_t i = 0; i < a->nopts; i++)
		has = has || strcmp(a->opts[i].name, "no-gateway") == 0;
	return has && !cli_flag(a, "no-gateway") &&
	       (no == NULL || no[0] == '\0' || strcmp(no, "0") == 0);
}

/* A found gateway not used, and why: a note on stderr now, and
 * evidence.gateway_fallback in the answer (mark_via). */
static void
fall_back(cli_session *s, const char *why)
{
	(void)fprintf(stderr,
	              "corpus-gw: note: gateway %s not used (%s); running "
	              "embedded\n",
	              s->addr, why);
	free(s->fallback);
	if (asprintf(&s->fallback, "gateway %s: %s", s->addr, why) < 0)
		s->fallback = NULL;
	drop_remote(s);
}

static int remote_http(const cli_session *s, const char *url, const char *body,
                       size_t len, long *status, cg_buf *resp, cg_err *err);

/* Uses the gateway on the local socket of this roster when there is one
 * and it says it is ready; else notes why not (when there was one). */
static bool
try_found(cli_session *s)
{
	char path[CG_LOCAL_PATH_MAX];
	char addr[CG_LOCAL_PATH_MAX + 8];
	cg_buf body;
	long status = 0;
	json_t *v = NULL;
	cg_err err;
	int rc;

	if (!cg_local_find(&s->cfg, path))
		return false;
	cg_err_clear(&err);
	(void)snprintf(addr, sizeof(addr), "unix:%s", path);
	if (set_remote(s, addr, &err) != 0) {
		drop_remote(s);
		return false;
	}
	s->found = true;
	s->timeout_ms = FOUND_PROBE_MS;
	cg_buf_init(&body, 4096);
	rc = remote_http(s, "http://localhost/readyz", NULL, 0, &status, &body,
	                 &err);
	if (rc == 0)
		v = json_loadb(body.data ? body.data : "", body.len, 0, NULL);
	if (rc == 0 &&
	    (status != 200 || !json_is_true(json_object_get(v, "ready"))))
		rc = cg_err_set(&err, CG_EPROTO,
		                status == 503
		                    ? "not ready"
		                    : "not a gateway's /readyz answer");
	json_decref(v);
	cg_buf_fini(&body);
	if (rc != 0) {
		fall_back(s, err.msg);
		return false;
	}
	s->timeout_ms = FOUND_TIMEOUT_MS;
	return true;
}

/* Opens the session; oneshot when the process exits after this command
 * (gateway.h).  Where its requests go: the file header. */
static int
session_open(cli_session *s, const cli_args *a, bool oneshot, cg_err *err)
{
	const char *gw = cli_get(a, "gateway");
	bool discover = oneshot && discovers(a);
	bool here = cli_get(a, "workspace") || cli_get(a, "config");
	int rc;

	memset(s, 0, sizeof(s[0]));
	s->oneshot = oneshot;
	s->timeout_ms = NAMED_TIMEOUT_MS;
	s->nscope = cli_all(a, "workspace-name", &s->scope);
	if (gw != NULL && here)
		return cg_err_set(err, CG_EINVAL,
		                  "--gateway talks to a running "
		                  "gateway: drop --workspace/--config");
	if (gw == NULL && discover && !here)
		gw = getenv("CORPUS_GW_GATEWAY");
	if (gw != NULL && gw[0] != '\0') {
		rc = set_remote(s, gw, err);
		return rc == 0 ? session_token(s, a, err) : rc;
	}
	if (cli_get(a, "token") != NULL)
		return cg_err_set(err, CG_EINVAL,
		                  "--token is for --gateway URL: an "
		                  "embedded gateway asks for no token");
	rc = cli_load_config(a, &s->cfg, err);
	if (rc != 0)
		return rc;
	s->have_cfg = 1;
	s->log.min = cli_flag(a, "verbose") ? CLI_LOG_DEBUG : CLI_LOG_WARN;
	if (discover && try_found(s))
		return 0;
	return open_embedded(s, err);
}

int
cli_session_open(cli_session *s, const cli_args *a, cg_err *err)
{
	return session_open(s, a, true, err);
}

int
cli_session_open_serving(cli_session *s, const cli_args *a, cg_err *err)
{
	return session_open(s, a, false, err);
}

void
cli_session_close(cli_session *s)
{
	cg_gateway_free(s->gw);
	if (s->have_cfg)
		cg_config_fini(&s->cfg);
	drop_remote(s);
	free(s->fallback);
	if (s->auth != NULL)
		explicit_bzero(s->auth, strlen(s->auth));
	free(s->auth);
	memset(s, 0, sizeof(s[0]));
}

/* A node that does not answer the sync is a warning, not a failure: the
 * command still runs, and its answer reports the node (outcome, degraded).
 * Only a roster without sources, or an invalid request, is an error. */
int
cli_session_sync(cli_session *s, json_t **report, cg_err *err)
{
	json_t *all = NULL;
	size_t i;
	const json_t *n;
	int rc;

	*report = NULL;
	if (s->fed == NULL)
		return 0; /* a running gateway keeps its nodes current */
	/* Only the nodes this session runs: a config's remote nodes are
	 * running services that keep their own indexes current, as the
	 * nodes behind a running gateway do, and a sync round may wait
	 * minutes (CG_FED_SYNC_DEADLINE_MS) that a stopped remote node must
	 * not cost a query. */
	rc = cg_gateway_sync(s->gw, &all, err);
	if (rc != 0)
		return rc;
	*report = json_object();
	json_array_foreach(json_object_get(all, "nodes"), i, n) {
		const json_t *res = json_object_get(n, "result");
		const char *src;
		const json_t *why;

		json_object_foreach(json_object_get(res, "failed"), src, why) {
			(void)fprintf(
			    stderr,
			    "corpus-gw: warning: source %s not synced: %s\n",
			    src, cg_json_str(why, "message"));
			s->unsynced++;
		}
		if (res == NULL)
			s->unsynced++;
		if (res != NULL)
			json_object_update(*report,
			                   json_object_get(res, "sources"));
		else
			(void)fprintf(
			    stderr,
			    "corpus-gw: warning: node %s not synced: %s\n",
			    json_string_value(json_object_get(n, "node")),
			    json_string_value(json_object_get(n, "outcome")));
	}
	json_decref(all);
	return 0;
}

static size_t
on_body(char *p, size_t size, size_t n, void *ctx)
{
	cg_buf *b = ctx;

	return cg_buf_append(b, p, size * n) == 0 ? size * n : 0;
}

/* args as a query string: repeated keys for arrays. */
static int
query_string(CURL *c, const json_t *args, cg_buf *url)
{
	const char *key;
	json_t *v;
	char sep = '?';

	json_object_foreach((json_t *)args, key, v) {
		size_t n = json_is_array(v) ? json_array_size(v) : 1;

		for (size_t i = 0; i < n; i++) {
			const json_t *item =
			    json_is_array(v) ? json_array_get(v, i) : v;
			char *text = json_is_string(item)
			                 ? strdup(json_string_value(item))
			                 : json_dumps(item, JSON_ENCODE_ANY);
			char *esc = text ? curl_easy_escape(c, text, 0) : NULL;

			if (esc == NULL) {
				free(text);
				return CG_ENOMEM;
			}
			(void)cg_buf_printf(url, "%c%s=%s", sep, key, esc);
			sep = '&';
			curl_free(esc);
			free(text);
		}
	}
	return 0;
}

/* The code of a gateway's error object {code, message}, by the one table
 * of names (common/cg_err.c), so that --gateway exits as --workspace
 * does; a reply without a failure code is a bad reply. */
static int
gateway_code(const json_t *e)
{
	int code = cg_code_from_name(cg_json_str_or_null(e, "code"));

	return code != CG_OK ? code : CG_EPROTO;
}

/* One request to the gateway: a GET of url, or a POST of body (JSON).
 * The answer's status and body land in *status and resp; only a transfer
 * that did not complete is an error (CG_EUNAVAIL). */
static int
remote_http(const cli_session *s, const char *url, const char *body, size_t len,
            long *status, cg_buf *resp, cg_err *err)
{
	CURL *c = curl_easy_init();
	struct curl_slist *hdr = NULL;
	CURLcode cc;
	int rc = 0;

	*status = 0;
	if (c == NULL)
		return cg_err_set(err, CG_ENOMEM, "curl: out of memory");
	if (s->auth != NULL)
		hdr = curl_slist_append(hdr, s->auth);
	if (body != NULL) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		hdr = curl_slist_append(
		    hdr, "Accept: application/json, text/event-stream");
		(void)curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		(void)curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)len);
	}
	if ((s->auth != NULL || body != NULL) && hdr == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "curl: out of memory");
	(void)curl_easy_setopt(c, CURLOPT_URL, url);
	(void)curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	(void)curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	(void)curl_easy_setopt(c, CURLOPT_WRITEDATA, resp);
	(void)curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, s->timeout_ms);
	if (s->sock != NULL) {
		(void)curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, s->sock);
		(void)curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
		                       (long)FOUND_PROBE_MS);
	}
	(void)curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	cc = rc ? CURLE_OK : curl_easy_perform(c);
	if (rc == 0 && cc != CURLE_OK)
		rc = cg_err_set(err, CG_EUNAVAIL, "gateway %s: %s", s->addr,
		                curl_easy_strerror(cc));
	(void)curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	return rc;
}

/* A 401 or 403: the gateway's message (msg, may be NULL) and what to do
 * about it; never the token. */
static int
auth_error(const cli_session *s, long status, const char *msg, cg_err *err)
{
	return cg_err_set(err, CG_EDENIED, "gateway %s: HTTP %ld%s%s: %s",
	                  s->addr, status, msg ? ", " : "", msg ? msg : "",
	                  s->auth ? "the token was refused"
	                          : "it wants a token (--token or "
	                            "CORPUS_GW_TOKEN)");
}

/* The error of a non-200 answer: the gateway's {error: {code, message}},
 * or for a 401/403 without one, what to do about it. */
static int
remote_error(const cli_session *s, long status, const json_t *v, cg_err *err)
{
	const json_t *e = json_object_get(v, "error");
	const char *msg = cg_json_str_or_null(e, "message");

	if (status == 401 || status == 403)
		return auth_error(s, status, msg, err);
	return cg_err_set(err, gateway_code(e), "%s",
	                  msg ? msg : "gateway error");
}

static int
remote_call(const cli_session *s, const char *tool, const json_t *args,
            json_t **out, cg_err *err)
{
	CURL *c = curl_easy_init();
	cg_buf url;
	cg_buf body;
	long status = 0;
	json_t *v = NULL;
	int rc = 0;

	*out = NULL;
	if (c == NULL)
		return cg_err_set(err, CG_ENOMEM, "curl: out of memory");
	cg_buf_init(&url, 1 << 16);
	cg_buf_init(&body, 256u << 20);
	(void)cg_buf_printf(&url, "%s/v1/%s", s->remote, tool);
	if (query_string(c, args, &url) != 0)
		rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	curl_easy_cleanup(c);
	if (rc == 0)
		rc = remote_http(s, cg_buf_str(&url), NULL, 0, &status, &body,
		                 err);
	if (rc == 0)
		v = json_loadb(body.data ? body.data : "", body.len, 0, NULL);
	if (rc == 0 && v == NULL && status != 401 && status != 403)
		rc =
		    cg_err_set(err, CG_EPROTO, "gateway %s: HTTP %ld, not JSON",
		               s->addr, status);
	if (rc == 0 && status != 200) {
		rc = remote_error(s, status, v, err);
		json_decref(v);
		v = NULL;
	}
	if (rc == 0 && !json_is_object(v)) {
		rc = cg_err_set(err, CG_EPROTO,
		                "gateway %s: HTTP 200, not a JSON object",
		                s->addr);
		json_decref(v);
		v = NULL;
	}
	*out = v;
	cg_buf_fini(&url);
	cg_buf_fini(&body);
	return rc;
}

int
cli_session_mcp(cli_session *s, const char *msg, size_t len, cg_buf *out,
                cg_err *err)
{
	cg_buf url;
	long status = 0;
	int rc;

	cg_buf_init(&url, 1 << 16);
	(void)cg_buf_printf(&url, "%s/mcp", s->remote);
	rc = remote_http(s, cg_buf_str(&url), msg, len, &status, out, err);
	cg_buf_fini(&url);
	if (rc == 0 && (status == 401 || status == 403))
		rc = auth_error(s, status, NULL, err);
	return rc;
}

/* Whether tool takes a "workspace" argument (its input schema says). */
static bool
takes_workspace(const char *tool)
{
	const cg_api_tool *t = cg_api_find(tool);
	json_t *in = t ? json_loads(t->input_schema, 0, NULL) : NULL;
	bool yes = json_object_get(json_object_get(in, "properties"),
	                           "workspace") != NULL;

	json_decref(in);
	return yes;
}

/* args with the session's workspace scope (a new reference). */
static json_t *
scoped(const cli_session *s, const char *tool, const json_t *args)
{
	json_t *v = args ? json_copy((json_t *)args) : json_object();
	json_t *l;

	if (v == NULL || s->nscope == 0 || !takes_workspace(tool) ||
	    json_object_get(v, "workspace") != NULL)
		return v;
	l = json_array();
	for (size_t i = 0; i < s->nscope; i++)
		json_array_append_new(l, json_string(s->scope[i]));
	json_object_set_new(v, "workspace", l);
	return v;
}

/* Whether a found gateway's failure means it is not a working gateway
 * (gone, hung, garbage, or refusing its own user), rather than an answer
 * (an invalid query is refused alike embedded). */
static bool
found_failed(int rc)
{
	return rc == CG_EUNAVAIL || rc == CG_EPROTO || rc == CG_EDENIED;
}

/* The found gateway failed the call: runs it embedded, the nodes synced
 * first as an embedded command does. */
static int
embedded_after(cli_session *s, const char *tool, const json_t *args,
               json_t **out, cg_err *err)
{
	json_t *report = NULL;
	int rc;

	fall_back(s, err->msg);
	cg_err_clear(err);
	rc = open_embedded(s, err);
	if (rc == 0)
		rc = cli_session_sync(s, &report, err);
	json_decref(report);
	if (rc == 0)
		rc = cg_api_call(s->fed, tool, args, out, err);
	return rc;
}

/* An answer's evidence says which gateway answered it, or why a found
 * one did not; an embedded answer without a gateway found is left as is. */
static void
mark_via(const cli_session *s, json_t *ans)
{
	json_t *ev = json_object_get(ans, "evidence");

	if (!json_is_object(ev))
		return;
	if (s->remote != NULL) {
		char *via = NULL;

		if (asprintf(&via, "gateway %s", s->addr) >= 0)
			json_object_set_new(ev, "via", json_string(via));
		free(via);
	} else if (s->fallback != NULL) {
		json_object_set_new(ev, "via", json_string("embedded"));
		json_object_set_new(ev, "gateway_fallback",
		                    json_string(s->fallback));
	}
}

int
cli_session_call(cli_session *s, const char *tool, const json_t *args,
                 json_t **out, cg_err *err)
{
	json_t *v = scoped(s, tool, args);
	int rc;

	*out = NULL;
	if (v == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	rc = s->remote != NULL ? remote_call(s, tool, v, out, err)
	                       : cg_api_call(s->fed, tool, v, out, err);
	if (rc != 0 && s->found && found_failed(rc))
		rc = embedded_after(s, tool, v, out, err);
	json_decref(v);
	if (rc == 0)
		mark_via(s, *out);
	return rc;
}

int
cli_session_tool(cli_session *s, const char *tool, json_t *args, json_t **out,
                 cg_err *err)
{
	int rc = cli_session_call(s, tool, args, out, err);

	json_decref(args);
	return rc;
}

long long
cli_num(const json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}
