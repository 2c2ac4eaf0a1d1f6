#ifndef LEAKHISTORY_CMICROHTTPD_SHIM_H
#define LEAKHISTORY_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// The daemon's settings, passed to `lh_mhd_start` as one struct (MHD_start_daemon is variadic).
struct lh_mhd_settings {
    const struct sockaddr *address;
    /// I/O threads: 0 or 1 means a single polling thread.
    unsigned int threads;
    unsigned int connection_limit;
    /// Bytes each connection may use for its headers and buffers.
    size_t connection_memory;
    /// Seconds of no traffic before a connection is closed.
    unsigned int idle_timeout_seconds;
    MHD_AccessHandlerCallback handler;
    MHD_RequestCompletedCallback completed;
    MHD_NotifyConnectionCallback notify_connection;
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection);
    /// Handed to every callback above.
    void *context;
};

/// Internal epoll threads; handlers may suspend a connection (MHD_ALLOW_SUSPEND_RESUME) and
/// answer it from another thread; the listening socket is handed back by quiesce so that
/// shutdown can stop accepting before it stops serving. No per-IP connection limit: behind a
/// proxy it would count the proxy, so the server counts connections per client itself
/// (ConnectionTable). No SO_REUSEPORT: a second server on a
/// port in use must fail, not share it.
static inline struct MHD_Daemon *lh_mhd_start(const struct lh_mhd_settings *s) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME;
    return MHD_start_daemon(
        flags, 0, NULL, NULL, s->handler, s->context,
        MHD_OPTION_SOCK_ADDR, s->address,
        MHD_OPTION_THREAD_POOL_SIZE, s->threads > 1 ? s->threads : 0,
        MHD_OPTION_CONNECTION_LIMIT, s->connection_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, s->connection_memory,
        MHD_OPTION_CONNECTION_TIMEOUT, s->idle_timeout_seconds,
        MHD_OPTION_NOTIFY_COMPLETED, s->completed, s->context,
        MHD_OPTION_NOTIFY_CONNECTION, s->notify_connection, s->context,
        MHD_OPTION_URI_LOG_CALLBACK, s->uri_log, s->context,
        MHD_OPTION_END);
}

/// MHD_get_daemon_info is variadic: the port the daemon really bound (useful with port 0).
static inline uint16_t lh_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The connection's socket, or -1.
static inline int lh_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The pointer the connection-notify callback stored for this connection, or NULL.
static inline void *lh_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// The connection's peer address (IPv4 or IPv6), or NULL.
static inline const struct sockaddr *lh_mhd_client_sockaddr(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

#endif
