#ifndef LEAKHISTORY_CSQLITE_SHIM_H
#define LEAKHISTORY_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: SQLite copies the bound bytes at once.
static inline sqlite3_destructor_type lh_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
