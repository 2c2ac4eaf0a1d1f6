#ifndef LEAKHISTORY_CZLIB_SHIM_H
#define LEAKHISTORY_CZLIB_SHIM_H
#include <zlib.h>

/// inflateInit2 is a macro over inflateInit2_ that Swift cannot import.
static inline int lh_inflate_init_gzip(z_stream *stream) {
    /* 15 window bits + 16: accept a gzip header and trailer only. */
    return inflateInit2(stream, 15 + 16);
}

/// deflateInit2 is a macro too: a gzip writer (used by tests and clients that send gzip bodies).
static inline int lh_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

#endif
