#ifndef HALFTUNES_CSQLITE_SETTINGS_H
#define HALFTUNES_CSQLITE_SETTINGS_H

/// Whether the last connection to a database, closing, checkpoints its write-ahead log into the
/// database file (SQLite's default, which flushes both to the device) or leaves the log for the
/// next open to read (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`). `connection` is an open `sqlite3 *`.
/// Swift cannot call `sqlite3_db_config`, which is variadic; this is that call.
///
/// Returns SQLite's result code (`SQLITE_OK`, 0, on success).
int halftunes_sqlite_checkpoint_on_close(void *connection, int checkpoints);

#endif
