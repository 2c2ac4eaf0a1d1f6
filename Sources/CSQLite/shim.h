#ifndef LEAKHISTORY_CSQLITE_SHIM_H
#define LEAKHISTORY_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: SQLite copies the bound bytes at once.
static inline sqlite3_destructor_type lh_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// A virtual table as SQLite allocates none itself: SQLite's part first, then the Swift object
/// that answers for it (`Unmanaged`, retained while the table is connected).
typedef struct lh_vtab {
    sqlite3_vtab base;
    void *owner;
} lh_vtab;

/// A virtual table's cursor, laid out as `lh_vtab` is.
typedef struct lh_vtab_cursor {
    sqlite3_vtab_cursor base;
    void *owner;
} lh_vtab_cursor;

#endif
