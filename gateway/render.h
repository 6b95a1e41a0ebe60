/*
 * render.h - the tools' answers as compact text for people and agents: one
 * renderer per tool, shared by the CLI (what `corpus-gw query` prints) and
 * MCP (the `text` content of a tool result; the full answer travels as
 * structuredContent).  A renderer reads an answer and appends text to a
 * buffer; it must not print, decide anything a tool decides, or drop what
 * a reader needs to act (a hit's uri and line range, a conflict's winner,
 * a followup, a node that did not answer).  Colour is the caller's choice
 * (a terminal); MCP never asks for it.
 *
 * May be included by gateway/ and cli/.
 */
#ifndef CG_RENDER_H
#define CG_RENDER_H

#include <stdbool.h>

#include <jansson.h>

#include "common/cg_buf.h"

typedef struct cg_render_opts {
	bool explain; /* search: match class, score and the evidence */
	bool color;   /* ANSI colour: titles bold, matched words bold red
	                 (without colour the **marks** are dropped) */
} cg_render_opts;

/* Appends the text of a tool's answer to out (capped buffers simply stop
 * growing). */
typedef void (*cg_render_fn)(cg_buf *out, const json_t *ans,
                             const cg_render_opts *o);

void cg_render_search(cg_buf *out, const json_t *ans, const cg_render_opts *o);
void cg_render_read(cg_buf *out, const json_t *ans, const cg_render_opts *o);
void cg_render_peek(cg_buf *out, const json_t *ans, const cg_render_opts *o);
void cg_render_links(cg_buf *out, const json_t *ans, const cg_render_opts *o);
void cg_render_resolve(cg_buf *out, const json_t *ans, const cg_render_opts *o);
void cg_render_list(cg_buf *out, const json_t *ans, const cg_render_opts *o);
void cg_render_map(cg_buf *out, const json_t *ans, const cg_render_opts *o);
void cg_render_grep(cg_buf *out, const json_t *ans, const cg_render_opts *o);
void cg_render_status(cg_buf *out, const json_t *ans, const cg_render_opts *o);

/* An index sync report ({source: stats}, `corpus-gw index`). */
void cg_render_sync(cg_buf *out, const json_t *report);

#endif
