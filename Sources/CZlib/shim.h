#ifndef LEAKHISTORY_CZLIB_SHIM_H
#define LEAKHISTORY_CZLIB_SHIM_H
#include <zlib.h>

/// inflateInit2 is a macro over inflateInit2_ that Swift cannot import.
static inline int lh_inflate_init_gzip(z_stream *stream) {
    /* 15 window bits + 16: accept a gzip header and trailer only. */
    return inflateInit2(stream, 15 + 16);
}

#endif
