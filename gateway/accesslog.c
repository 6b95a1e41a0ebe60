/*
 * accesslog.c - formats the line of accesslog.h.  It must not write
 * anything itself (the logger decides where lines go) nor ever be handed a
 * secret: http.c passes the token's name.
 */
#include "gateway/accesslog.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/cg_utf8.h"

/* s percent-encoded as a uri part (common/cg_utf8.h: '/' kept, valid
 * UTF-8 kept, every control byte, space, quote and backslash encoded),
 * cut to CG_ACCESSLOG_ROUTE_MAX bytes first; into out (cap bytes). */
static void
escape(char *out, size_t cap, const char *s)
{
	char cut[CG_ACCESSLOG_ROUTE_MAX + 1];
	char *e;

	(void)snprintf(cut, sizeof(cut), "%s", s);
	e = cg_pct_encode(cut, true);
	(void)snprintf(out, cap, "%s", e ? e : "-");
	free(e);
}

void
cg_accesslog_write(cg_log_fn log, void *ctx, const char *method,
                   const char *route, int status, double ms, const char *token)
{
	char m[64];
	char r[3 * CG_ACCESSLOG_ROUTE_MAX + 1];
	char t[3 * CG_ACCESSLOG_ROUTE_MAX + 1];
	char line[2048];

	if (log == NULL)
		return;
	escape(m, sizeof(m), method ? method : "-");
	escape(r, sizeof(r), route ? route : "-");
	escape(t, sizeof(t), token ? token : "-");
	(void)snprintf(line, sizeof(line),
	               "request method=%s route=%s status=%d ms=%.1f token=%s",
	               m, r, status, ms, t);
	log(ctx, "info", "http", line);
}
