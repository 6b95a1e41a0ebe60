/*
 * test_cli_gateway.c - the CLI uses a running gateway (issue 11, the CLI
 * part): `corpus-gw serve` listens on a local socket under
 * $XDG_RUNTIME_DIR, and `corpus-gw query` (and the other read commands)
 * of the same workspace go through it, with the same answer as embedded
 * mode and evidence.via naming it.  Covered, with the real binary, real
 * serve processes and real unix sockets:
 *   - the same hits, conflicts, notes and followups through the gateway
 *     and embedded (--no-gateway) for queries of the example workspace,
 *     the same text output, and list/read/grep alike;
 *   - a workspace that differs (another root, a sub-workspace) runs
 *     embedded, silently; CORPUS_GW_NO_GATEWAY too;
 *   - CORPUS_GW_GATEWAY names a gateway (used without --workspace, an
 *     unreachable one is an error, not a fallback);
 *   - a stale socket (its gateway SIGKILLed): the query falls back with a
 *     note, and the next serve replaces it; a clean exit removes it;
 *   - a hostile server on the socket (never answers, answers garbage,
 *     answers /readyz then garbage): a bounded fallback, same answer;
 *   - the socket's permissions (directory 0700, socket 0600, another uid
 *     cannot connect), a directory open to others is not used, and a
 *     gateway with tokens answers its own user over the socket.
 * The test sets XDG_RUNTIME_DIR to a directory of its own.
 */
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgproc.h"
#include "cgtest.h"

#define WAIT_MS 60000 /* a serve's first sync, under load */

static struct {
	char *dir;
	char run[1024]; /* XDG_RUNTIME_DIR */
	char ws[1024];  /* the example workspace */
	char cache[1024];
	char sock[512]; /* ws's local socket */
	char url[256];  /* ws's HTTP address */
} fx;

/* A serve process and what it said. */
struct gw {
	cgt_proc *p;
	char log[1024];
	char url[256];
	char sock[512]; /* "" when it made none */
};

/* The text after needle on the first log line holding it, to the line's
 * end, into out; 0 when no line holds it. */
static int
log_after(const char *log, const char *needle, char *out, size_t n)
{
	FILE *f = fopen(log, "r");
	char line[8192];
	int found = 0;

	if (f == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		char *at = strstr(line, needle);

		if (at != NULL) {
			at += strlen(needle);
			at[strcspn(at, "\n")] = '\0';
			(void)snprintf(out, n, "%s", at);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* Starts `serve --workspace ws` (args: more options, NULL-ended) and
 * waits for "listening" and, when want_sock, for its local socket. */
static void
gw_start(struct gw *g, const char *tag, bool want_sock, const char *first, ...)
{
	const char *argv[24] = {"corpus-gw", "serve", "--listen",
	                        "http://127.0.0.1:0"};
	size_t n = 4;
	va_list ap;
	char *line;
	int64_t until;

	memset(g, 0, sizeof(*g));
	(void)snprintf(g->log, sizeof(g->log), "%s/%s.log", fx.dir, tag);
	va_start(ap, first);
	for (const char *a = first; a != NULL && n < 22;
	     a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	g->p = cgt_spawnv(g->log, argv);
	assert_non_null(g->p);
	line = cgt_proc_line(g->p, WAIT_MS * cgt_slowdown());
	assert_non_null(line);
	assert_int_equal(strncmp(line, "listening ", 10), 0);
	(void)snprintf(g->url, sizeof(g->url), "%s", line + 10);
	free(line);
	until = cgt_now_ms() + (int64_t)WAIT_MS * cgt_slowdown();
	while (want_sock &&
	       !log_after(g->log, "local socket unix:", g->sock,
	                  sizeof(g->sock)) &&
	       cgt_now_ms() < until)
		cgt_sleep_ms(20);
	if (want_sock && g->sock[0] == '\0')
		fail_msg("serve made no local socket: see %s", g->log);
}

static void
gw_stop(struct gw *g)
{
	cgt_proc_kill(g->p, SIGTERM);
	assert_int_equal(cgt_proc_wait(g->p, 30000 * cgt_slowdown()), 0);
	cgt_proc_free(g->p);
	g->p = NULL;
}

static int
vrun(char **out, char **err, const char *first, va_list ap)
{
	const char *argv[32] = {"corpus-gw"};
	size_t n = 1;

	for (const char *a = first; a != NULL && n < 31;
	     a = va_arg(ap, const char *))
		argv[n++] = a;
	argv[n] = NULL;
	return cgt_runv(out, err, argv);
}

/* Runs corpus-gw with the arguments (NULL-ended, after the binary name):
 * exit code, stdout and stderr (malloc'd). */
static int
run(char **out, char **err, const char *first, ...)
{
	va_list ap;
	int rc;

	va_start(ap, first);
	rc = vrun(out, err, first, ap);
	va_end(ap);
	return rc;
}

/* The JSON of a command that must succeed (out and err freed). */
static json_t *
json_of(int rc, char *out, char *err)
{
	json_t *v;

	if (rc != 0)
		fail_msg("exit %d: %s", rc, err ? err : "");
	v = json_loads(out ? out : "", 0, NULL);
	if (v == NULL)
		fail_msg("not JSON: %.300s", out ? out : "");
	free(out);
	free(err);
	return v;
}

/* run() of a command that must succeed and print JSON. */
static json_t *
run_json(const char *first, ...)
{
	char *out = NULL;
	char *err = NULL;
	va_list ap;
	int rc;

	va_start(ap, first);
	rc = vrun(&out, &err, first, ap);
	va_end(ap);
	return json_of(rc, out, err);
}

static const char *
via_of(const json_t *ans)
{
	return json_string_value(
	    json_object_get(json_object_get(ans, "evidence"), "via"));
}

/* Asserts that a and b are equal but for their evidence. */
static void
assert_same_answer(const json_t *a, const json_t *b, const char *what)
{
	json_t *x = json_deep_copy(a);
	json_t *y = json_deep_copy(b);

	json_object_del(x, "evidence");
	json_object_del(y, "evidence");
	if (!json_equal(x, y)) {
		char *sx = json_dumps(x, JSON_COMPACT);
		char *sy = json_dumps(y, JSON_COMPACT);

		fail_msg("%s: through the gateway %.600s\nembedded %.600s",
		         what, sx, sy);
	}
	json_decref(x);
	json_decref(y);
}

static void
want_via_socket(const json_t *ans, const char *sock)
{
	char want[600];

	(void)snprintf(want, sizeof(want), "gateway unix:%s", sock);
	assert_non_null(via_of(ans));
	assert_string_equal(via_of(ans), want);
}

static int
setup(void **state)
{
	(void)state;
	fx.dir = cgt_tmpdir("cli-gateway");
	(void)snprintf(fx.run, sizeof(fx.run), "%s/run", fx.dir);
	(void)snprintf(fx.ws, sizeof(fx.ws), "%s/ws", fx.dir);
	(void)snprintf(fx.cache, sizeof(fx.cache), "%s/cache", fx.dir);
	if (mkdir(fx.run, 0700) != 0)
		return -1;
	setenv("XDG_RUNTIME_DIR", fx.run, 1);
	unsetenv("CORPUS_GW_GATEWAY");
	unsetenv("CORPUS_GW_NO_GATEWAY");
	cgt_sh("cp -r '%s/conf/example' '%s'", getenv("CG_SRC"), fx.ws);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	cgt_rm(fx.dir);
	free(fx.dir);
	return 0;
}

/* The served example workspace, started once for the tests below. */
static struct gw main_gw;

static void
start_main(void)
{
	if (main_gw.p != NULL)
		return;
	gw_start(&main_gw, "main", true, "--workspace", fx.ws, "--cache",
	         fx.cache, NULL);
	(void)snprintf(fx.sock, sizeof(fx.sock), "%s", main_gw.sock);
	(void)snprintf(fx.url, sizeof(fx.url), "%s", main_gw.url);
}

/* Hits, conflicts, notes and followups: the same through the gateway and
 * embedded, for queries that give hits, conflicts, a note, filters,
 * exclusions; evidence.via names the socket. */
static void
test_same_answers(void **state)
{
	static const char *const queries[][3] = {
	    {"refund", NULL, NULL},
	    {"refund window", NULL, NULL},
	    {"refund within 30 days", NULL, NULL},
	    {"deploy rollback", NULL, NULL},
	    {"pricing", NULL, NULL},
	    {"seat", NULL, NULL},
	    {"api versioning", NULL, NULL},
	    {"refund -billing", NULL, NULL},
	    {"refund", "--category", "standard"},
	    {"zzqx-nothing-here", NULL, NULL},
	};
	int conflicts = 0;
	int notes = 0;
	int hits = 0;

	(void)state;
	start_main();
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		const char *q = queries[i][0];
		const char *f = queries[i][1];
		const char *fv = queries[i][2];
		json_t *via = run_json("query", "--workspace", fx.ws, "--cache",
		                       fx.cache, "--json", q, f, fv, NULL);
		json_t *emb =
		    run_json("query", "--workspace", fx.ws, "--cache", fx.cache,
		             "--no-gateway", "--json", q, f, fv, NULL);

		want_via_socket(via, fx.sock);
		assert_null(via_of(emb));
		assert_same_answer(via, emb, q);
		conflicts +=
		    json_array_size(json_object_get(via, "conflicts")) > 0;
		notes += json_object_get(via, "note") != NULL;
		hits += json_array_size(json_object_get(via, "hits")) > 0;
		json_decref(via);
		json_decref(emb);
	}
	/* The set covers what it claims to. */
	assert_true(conflicts > 0);
	assert_true(notes > 0);
	assert_true(hits >= 6);
}

/* The text a person reads is the same too. */
static void
test_same_text(void **state)
{
	static const char *const queries[] = {"refund window", "deploy",
	                                      "zzqx-nothing-here"};

	(void)state;
	start_main();
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		char *a = NULL;
		char *b = NULL;

		assert_int_equal(run(&a, NULL, "query", "--workspace", fx.ws,
		                     "--cache", fx.cache, queries[i], NULL),
		                 0);
		assert_int_equal(run(&b, NULL, "query", "--workspace", fx.ws,
		                     "--cache", fx.cache, "--no-gateway",
		                     queries[i], NULL),
		                 0);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	/* grep's lines too (its --json is a stream of objects). */
	{
		char *a = NULL;
		char *b = NULL;

		assert_int_equal(run(&a, NULL, "grep", "--workspace", fx.ws,
		                     "--cache", fx.cache, "refund", NULL),
		                 0);
		assert_int_equal(run(&b, NULL, "grep", "--workspace", fx.ws,
		                     "--cache", fx.cache, "--no-gateway",
		                     "refund", NULL),
		                 0);
		assert_non_null(strstr(a, "refund-window.md"));
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
}

/* The other read commands go through it as well. */
static void
test_other_tools(void **state)
{
	char uri[1200];
	const char *cmds[][3] = {
	    {"list", NULL, NULL},
	    {"status", NULL, NULL},
	    {"map", NULL, NULL},
	    {"read", uri, NULL},
	};

	(void)state;
	start_main();
	(void)snprintf(uri, sizeof(uri),
	               "cg://ws/root/.guild/wiki/decisions/pricing-model.md");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		json_t *via =
		    run_json(cmds[i][0], "--workspace", fx.ws, "--cache",
		             fx.cache, "--json", cmds[i][1], NULL);
		json_t *emb = run_json(cmds[i][0], "--workspace", fx.ws,
		                       "--cache", fx.cache, "--no-gateway",
		                       "--json", cmds[i][1], NULL);

		want_via_socket(via, fx.sock);
		assert_null(via_of(emb));
		if (strcmp(cmds[i][0], "status") != 0) /* ages, index bytes */
			assert_same_answer(via, emb, cmds[i][0]);
		json_decref(via);
		json_decref(emb);
	}
}

/* Another root, a sub-workspace, CORPUS_GW_NO_GATEWAY: embedded, and no
 * note (nothing was found, nothing failed). */
static void
test_other_workspace_embedded(void **state)
{
	char ws2[1100];
	char sub[1100];
	const struct {
		const char *root;
		const char *no_gateway; /* CORPUS_GW_NO_GATEWAY, or NULL */
	} cases[] = {{ws2, NULL}, {sub, NULL}, {fx.ws, "1"}};

	(void)state;
	start_main();
	(void)snprintf(ws2, sizeof(ws2), "%s/ws2", fx.dir);
	(void)snprintf(sub, sizeof(sub), "%s/billing", fx.ws);
	cgt_sh("cp -r '%s' '%s'", fx.ws, ws2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *o = NULL;
		char *e = NULL;
		json_t *ans;

		if (cases[i].no_gateway != NULL)
			setenv("CORPUS_GW_NO_GATEWAY", cases[i].no_gateway, 1);
		assert_int_equal(run(&o, &e, "query", "--workspace",
		                     cases[i].root, "--cache", fx.cache,
		                     "--json", "refund", NULL),
		                 0);
		unsetenv("CORPUS_GW_NO_GATEWAY");
		assert_null(strstr(e, "note"));
		ans = json_of(0, o, e);
		assert_null(via_of(ans));
		assert_null(json_object_get(json_object_get(ans, "evidence"),
		                            "gateway_fallback"));
		assert_true(json_array_size(json_object_get(ans, "hits")) > 0);
		json_decref(ans);
	}
}

/* CORPUS_GW_GATEWAY names a gateway: used when no --workspace/--config
 * is given; one that does not answer is an error naming it. */
static void
test_named_gateway(void **state)
{
	char via[300];
	char gone[1100];
	char *e = NULL;
	json_t *ans;

	(void)state;
	start_main();
	setenv("CORPUS_GW_GATEWAY", fx.url, 1);
	ans = run_json("query", "--json", "refund", NULL);
	(void)snprintf(via, sizeof(via), "gateway %s", fx.url);
	assert_string_equal(via_of(ans), via);
	json_decref(ans);
	/* --workspace on the command line wins over the environment. */
	ans = run_json("query", "--workspace", fx.ws, "--cache", fx.cache,
	               "--json", "refund", NULL);
	want_via_socket(ans, fx.sock);
	json_decref(ans);

	(void)snprintf(gone, sizeof(gone), "unix:%s/none.sock", fx.dir);
	setenv("CORPUS_GW_GATEWAY", gone, 1);
	assert_int_equal(run(NULL, &e, "query", "--json", "refund", NULL), 1);
	assert_non_null(strstr(e, gone));
	free(e);
	setenv("CORPUS_GW_GATEWAY", "http://127.0.0.1:1", 1);
	assert_int_equal(run(NULL, &e, "query", "--json", "refund", NULL), 1);
	assert_non_null(strstr(e, "http://127.0.0.1:1"));
	free(e);
	setenv("CORPUS_GW_GATEWAY", "unix:relative.sock", 1);
	assert_int_equal(run(NULL, &e, "query", "--json", "refund", NULL), 2);
	free(e);
	unsetenv("CORPUS_GW_GATEWAY");
}

/* A query whose found gateway failed: exit 0, the embedded answer (equal
 * to --no-gateway's), a note on stderr and evidence.gateway_fallback. */
static void
assert_fallback(const char *ws, const char *cache, const char *sock)
{
	char *o = NULL;
	char *e = NULL;
	json_t *ans;
	json_t *emb;
	const json_t *ev;
	int64_t t0 = cgt_now_ms();

	assert_int_equal(run(&o, &e, "query", "--workspace", ws, "--cache",
	                     cache, "--json", "refund", NULL),
	                 0);
	/* Bounded: the probe's 2 s (or the tool's 15 s), not a hang. */
	assert_true(cgt_now_ms() - t0 < 40000 * cgt_slowdown());
	assert_non_null(strstr(e, "note: gateway unix:"));
	assert_non_null(strstr(e, sock));
	ans = json_of(0, o, e);
	ev = json_object_get(ans, "evidence");
	assert_string_equal(via_of(ans), "embedded");
	assert_non_null(strstr(
	    json_string_value(json_object_get(ev, "gateway_fallback")), sock));
	emb = run_json("query", "--workspace", ws, "--cache", cache,
	               "--no-gateway", "--json", "refund", NULL);
	assert_same_answer(ans, emb, "fallback");
	json_decref(ans);
	json_decref(emb);
}

static char ws3[1100];
static char cache3[1100];
static char sock3[512];

/* A gateway killed leaves its socket: the CLI falls back, the next serve
 * replaces it, a clean exit removes it. */
static void
test_stale_socket(void **state)
{
	struct gw g;
	struct stat st;

	(void)state;
	(void)snprintf(ws3, sizeof(ws3), "%s/ws3", fx.dir);
	(void)snprintf(cache3, sizeof(cache3), "%s/cache3", fx.dir);
	cgt_sh("cp -r '%s/conf/example' '%s'", getenv("CG_SRC"), ws3);
	gw_start(&g, "stale1", true, "--workspace", ws3, "--cache", cache3,
	         NULL);
	(void)snprintf(sock3, sizeof(sock3), "%s", g.sock);
	cgt_proc_kill(g.p, SIGKILL);
	(void)cgt_proc_wait(g.p, 30000);
	cgt_proc_free(g.p);
	assert_int_equal(lstat(sock3, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_fallback(ws3, cache3, sock3);

	gw_start(&g, "stale2", true, "--workspace", ws3, "--cache", cache3,
	         NULL);
	assert_string_equal(g.sock, sock3);
	{
		json_t *ans = run_json("query", "--workspace", ws3, "--cache",
		                       cache3, "--json", "refund", NULL);

		want_via_socket(ans, sock3);
		json_decref(ans);
	}
	gw_stop(&g);
	assert_int_equal(lstat(sock3, &st), -1);
	assert_int_equal(errno, ENOENT);
}

/* --- a hostile server on the socket --------------------------------------
 */

enum hostile_mode { SILENT, GARBAGE, READY_THEN_JUNK };

static struct {
	int lfd;
	enum hostile_mode mode;
	atomic_bool stop;
	int held[64]; /* SILENT: connections accepted and never answered */
	size_t nheld;
	atomic_int served;
} hs;

static void
hostile_answer(int fd)
{
	static const char ready[] = "HTTP/1.1 200 OK\r\nContent-Type: "
	                            "application/json\r\nContent-Length: "
	                            "14\r\nConnection: close\r\n\r\n"
	                            "{\"ready\":true}";
	static const char junk[] = "HTTP/1.1 200 OK\r\nContent-Length: "
	                           "9\r\nConnection: close\r\n\r\n[not json";
	static const char garbage[] = "\x16\x03\x01garbage, not HTTP at all\n";
	char req[4096];
	ssize_t n = recv(fd, req, sizeof(req) - 1, 0);
	const char *reply = garbage;
	size_t len = sizeof(garbage) - 1;

	req[n > 0 ? n : 0] = '\0';
	if (hs.mode == READY_THEN_JUNK) {
		bool is_ready = strstr(req, "GET /readyz") != NULL;

		reply = is_ready ? ready : junk;
		len = is_ready ? sizeof(ready) - 1 : sizeof(junk) - 1;
	}
	(void)send(fd, reply, len, MSG_NOSIGNAL);
	close(fd);
}

static void *
hostile_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&hs.stop)) {
		struct pollfd p = {hs.lfd, POLLIN, 0};
		int fd;

		if (poll(&p, 1, 50) <= 0)
			continue;
		fd = accept(hs.lfd, NULL, NULL);
		if (fd < 0)
			continue;
		atomic_fetch_add(&hs.served, 1);
		if (hs.mode == SILENT && hs.nheld < 64)
			hs.held[hs.nheld++] = fd;
		else if (hs.mode == SILENT)
			close(fd);
		else
			hostile_answer(fd);
	}
	return NULL;
}

static void
hostile_run(enum hostile_mode mode)
{
	struct sockaddr_un sa = {0};
	pthread_t t;

	memset(&hs, 0, sizeof(hs));
	hs.mode = mode;
	hs.lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(hs.lfd >= 0);
	sa.sun_family = AF_UNIX;
	(void)snprintf(sa.sun_path, sizeof(sa.sun_path), "%.100s", sock3);
	(void)unlink(sock3);
	assert_int_equal(bind(hs.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(hs.lfd, 16), 0);
	assert_int_equal(pthread_create(&t, NULL, hostile_main, NULL), 0);
	assert_fallback(ws3, cache3, sock3);
	assert_true(atomic_load(&hs.served) > 0);
	atomic_store(&hs.stop, true);
	pthread_join(t, NULL);
	for (size_t i = 0; i < hs.nheld; i++)
		close(hs.held[i]);
	close(hs.lfd);
	(void)unlink(sock3);
}

static void
test_hostile_silent(void **state)
{
	(void)state;
	assert_true(sock3[0] != '\0');
	hostile_run(SILENT);
}

static void
test_hostile_garbage(void **state)
{
	(void)state;
	assert_true(sock3[0] != '\0');
	hostile_run(GARBAGE);
}

static void
test_hostile_ready_then_junk(void **state)
{
	(void)state;
	assert_true(sock3[0] != '\0');
	hostile_run(READY_THEN_JUNK);
}

/* --- access ----------------------------------------------------------------
 */

/* 0 when a process of uid 65534 cannot connect to path. */
static int
other_uid_refused(const char *path)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		struct sockaddr_un sa = {0};
		int fd;

		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(3);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		sa.sun_family = AF_UNIX;
		(void)snprintf(sa.sun_path, sizeof(sa.sun_path), "%.100s",
		               path);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			_exit(1);
		_exit(errno == EACCES ? 0 : 2);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void
test_permissions(void **state)
{
	struct stat st;
	char dir[1100];

	(void)state;
	start_main();
	(void)snprintf(dir, sizeof(dir), "%s/corpus-gw", fx.run);
	assert_int_equal(lstat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(lstat(fx.sock, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_uid, geteuid());
	if (geteuid() == 0)
		assert_int_equal(other_uid_refused(fx.sock), 0);
}

/* A directory others may enter is not used: serve warns and serves
 * without a socket, the CLI runs embedded. */
static void
test_open_directory_unused(void **state)
{
	char run2[1100];
	char ws4[1100];
	char cache4[1100];
	struct gw g;
	json_t *ans;
	char why[600];

	(void)state;
	(void)snprintf(run2, sizeof(run2), "%s/run2", fx.dir);
	(void)snprintf(ws4, sizeof(ws4), "%s/ws4", fx.dir);
	(void)snprintf(cache4, sizeof(cache4), "%s/cache4", fx.dir);
	cgt_sh("mkdir -p '%s/corpus-gw' && chmod 0755 '%s/corpus-gw'", run2,
	       run2);
	cgt_sh("cp -r '%s/conf/example' '%s'", getenv("CG_SRC"), ws4);
	setenv("XDG_RUNTIME_DIR", run2, 1);
	gw_start(&g, "open-dir", false, "--workspace", ws4, "--cache", cache4,
	         NULL);
	ans = run_json("query", "--workspace", ws4, "--cache", cache4, "--json",
	               "refund", NULL);
	assert_null(via_of(ans));
	json_decref(ans);
	assert_true(
	    log_after(g.log, "not a directory of this user", why, sizeof(why)));
	assert_int_equal(
	    log_after(g.log, "local socket unix:", why, sizeof(why)), 0);
	gw_stop(&g);
	setenv("XDG_RUNTIME_DIR", fx.run, 1);
}

/* A gateway with tokens: its own user, over the socket, gets every page
 * without one (local.h: the socket widens nothing), as embedded would. */
static void
test_tokens_same_uid(void **state)
{
	char ws5[1100];
	char cfg[1100];
	struct gw g;
	json_t *via;
	json_t *emb;
	char *text;

	(void)state;
	(void)snprintf(ws5, sizeof(ws5), "%s/ws5", fx.dir);
	(void)snprintf(cfg, sizeof(cfg), "%s/gw5.yaml", fx.dir);
	cgt_sh("cp -r '%s/conf/example' '%s'", getenv("CG_SRC"), ws5);
	cgt_sh("printf 'listen: http://127.0.0.1:0\\ncache: %s/cache5\\n"
	       "workspaces:\\n  - name: acme\\n    path: %s\\ntokens:\\n"
	       "  - name: narrow\\n    secret_env: CGT_NARROW\\n"
	       "    allow: [\"cg://acme/web/*\"]\\n' >'%s'",
	       fx.dir, ws5, cfg);
	setenv("CGT_NARROW", "narrow-secret-5e1d", 1);
	gw_start(&g, "tokens", true, "--config", cfg, NULL);
	via = run_json("query", "--config", cfg, "--json", "refund", NULL);
	emb = run_json("query", "--config", cfg, "--no-gateway", "--json",
	               "refund", NULL);
	want_via_socket(via, g.sock);
	assert_same_answer(via, emb, "tokens");
	/* More than the narrow token would see. */
	text = json_dumps(via, 0);
	assert_non_null(strstr(text, "cg://acme/billing/"));
	free(text);
	json_decref(via);
	json_decref(emb);
	gw_stop(&g);
	unsetenv("CGT_NARROW");
}

static void
test_stop_main(void **state)
{
	struct stat st;

	(void)state;
	start_main();
	gw_stop(&main_gw);
	assert_int_equal(lstat(fx.sock, &st), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_answers),
	    cmocka_unit_test(test_same_text),
	    cmocka_unit_test(test_other_tools),
	    cmocka_unit_test(test_other_workspace_embedded),
	    cmocka_unit_test(test_named_gateway),
	    cmocka_unit_test(test_permissions),
	    cmocka_unit_test(test_stale_socket),
	    cmocka_unit_test(test_hostile_silent),
	    cmocka_unit_test(test_hostile_garbage),
	    cmocka_unit_test(test_hostile_ready_then_junk),
	    cmocka_unit_test(test_open_directory_unused),
	    cmocka_unit_test(test_tokens_same_uid),
	    cmocka_unit_test(test_stop_main),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
