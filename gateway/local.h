/*
 * local.h - the gateway's local socket: where `corpus-gw serve` also
 * listens on this machine for its own user, and where `corpus-gw query`
 * (and the other read commands) look for a gateway serving the workspace
 * they were asked about before opening one of their own.
 *
 * The place: $XDG_RUNTIME_DIR/corpus-gw/<key>.sock, where the key names
 * the roster (cg_local_key: every served workspace's name and real path,
 * and every remote node's name, address, workspace and sources, sorted, so
 * the order of a config does not matter).  A CLI finds a gateway only when
 * it would open exactly that roster itself.  Without XDG_RUNTIME_DIR (or
 * with a path too long for a unix socket) there is no local socket.
 *
 * Who may connect: the directory is created 0700 and must be owned by
 * this user with no group or other access, or it is not used; the socket
 * is 0600; and the gateway checks every connection's peer uid
 * (SO_PEERCRED, cg_local_peer_ok) against its own.  Decision: a caller of
 * the same uid gets the unrestricted policy, as an embedded gateway does:
 * it can already read the workspace, the index files and the config (its
 * tokens' secrets included), so a token restriction would protect nothing
 * from it; the socket widens no access.
 *
 * The HTTP served on the socket is the gateway's one handler (http.h,
 * opts.local); this module must not answer requests.  It must not remove
 * anything but a socket: a stale socket (connect refused: its gateway is
 * gone) is replaced, a live one is left to its gateway, a file of another
 * kind is left alone.
 *
 * May be included by gateway/ and cli/.
 */
#ifndef CG_LOCAL_H
#define CG_LOCAL_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

#include "common/cg_err.h"
#include "conf/config.h"

#define CG_LOCAL_KEY_LEN  16  /* hex characters of the roster key */
#define CG_LOCAL_PATH_MAX 108 /* sizeof(sockaddr_un.sun_path) */

/* The local socket a gateway listens on (cg_local_listen). */
typedef struct cg_local {
	int fd;                       /* listening; -1: none */
	char path[CG_LOCAL_PATH_MAX]; /* where it was bound */
	char key[CG_LOCAL_KEY_LEN + 1];
	dev_t dev; /* the socket file bound, so that close removes only */
	ino_t ino; /* ours, never a later gateway's */
} cg_local;

/* The roster key of c into out (CG_LOCAL_KEY_LEN hex and a NUL); 0, or
 * CG_ENOMEM. */
int cg_local_key(const cg_config *c, char out[CG_LOCAL_KEY_LEN + 1]);

/* The socket path for c into out; CG_ENOTFOUND when XDG_RUNTIME_DIR is
 * unset or empty, CG_ETOOBIG when the path would not fit a unix socket. */
int cg_local_path(const cg_config *c, char out[CG_LOCAL_PATH_MAX], cg_err *err);

/* Creates the private directory and binds and listens on c's socket
 * (0600), replacing a stale one.  CG_ENOTFOUND: no XDG_RUNTIME_DIR;
 * CG_EINVAL: another gateway is live on it (the message says where);
 * CG_EDENIED: the directory is not private to this user; CG_EIO: the OS
 * refused.  On success l->fd belongs to the caller (http.h takes it). */
int cg_local_listen(cg_local *l, const cg_config *c, cg_err *err);

/* Removes the socket file when it is still the one l bound; does not
 * close l->fd (its server owns it).  NULL and a never-bound l are fine. */
void cg_local_close(cg_local *l);

/* A client's look-up: 1 and the path in out when a socket of this user
 * exists at c's path inside a private directory, else 0. */
int cg_local_find(const cg_config *c, char out[CG_LOCAL_PATH_MAX]);

/* Whether the peer of the connected unix socket fd runs as this
 * process's effective uid. */
bool cg_local_peer_ok(int fd);

#endif
