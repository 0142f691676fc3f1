#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/falloc.h>
#include "CFileWriteback.h"

int halftunes_wait_written(int descriptor, long long offset, long long length) {
    return sync_file_range(descriptor, (off64_t)offset, (off64_t)length,
                           SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
}

int halftunes_reserve(int descriptor, long long offset, long long length) {
    return fallocate(descriptor, FALLOC_FL_KEEP_SIZE, (off_t)offset, (off_t)length);
}
