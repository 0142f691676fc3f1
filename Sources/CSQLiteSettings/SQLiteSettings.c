#include "CSQLiteSettings.h"

#include <sqlite3.h>

int halftunes_sqlite_checkpoint_on_close(void *connection, int checkpoints) {
    return sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, checkpoints ? 0 : 1, (int *)0);
}
