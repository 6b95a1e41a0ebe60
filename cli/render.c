/*
 * render.c - prints a tool's answer for people: the compact text of
 * gateway/render.h (the same text MCP sends agents), in colour only when
 * stdout is a terminal and NO_COLOR is unset or empty (no-color.org).
 * It holds no rendering of its own: a change of wording belongs in
 * gateway/render.c, so the CLI and MCP never drift apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/cg_buf.h"

bool
cli_color(void)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(STDOUT_FILENO) && (nc == NULL || *nc == '\0');
}

void
cli_render(cg_render_fn fn, const json_t *ans, bool explain)
{
	const cg_render_opts o = {explain, cli_color()};
	cg_buf b;

	cg_buf_init(&b, 256u << 20);
	fn(&b, ans, &o);
	if (b.len > 0)
		(void)fwrite(b.data, 1, b.len, stdout);
	cg_buf_fini(&b);
}
