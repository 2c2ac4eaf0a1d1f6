#ifndef LEAKHISTORY_CMICROHTTPD_SHIM_H
#define LEAKHISTORY_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// MHD_start_daemon is variadic: the one call the server makes, with its options spelled out.
/// Internal epoll threads, a pool of `threads` (0 or 1: a single polling thread), the listening
/// socket handed back by quiesce so that shutdown can stop accepting before it stops serving.
/// No SO_REUSEPORT: a second server on a port in use must fail, not share it.
static inline struct MHD_Daemon *lh_mhd_start(
    const struct sockaddr *address,
    unsigned int threads,
    unsigned int connection_limit,
    unsigned int connection_timeout_seconds,
    MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context)
{
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC;
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, handler_context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_THREAD_POOL_SIZE, threads > 1 ? threads : 0,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_END);
}

/// MHD_get_daemon_info is variadic: the port the daemon really bound (useful with port 0).
static inline uint16_t lh_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

#endif
