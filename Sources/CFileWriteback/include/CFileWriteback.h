#ifndef C_FILE_WRITEBACK_H
#define C_FILE_WRITEBACK_H

/// Waits until the kernel has written the byte range [offset, offset + length) of the file open
/// as `descriptor` to the device, starting the write of what is still dirty in it first
/// (sync_file_range with WAIT_BEFORE, WRITE and WAIT_AFTER). It does not flush the device's cache
/// nor the file's metadata: it is no durability promise, only a way to know the range's pages are
/// clean. Returns 0, or -1 with errno set.
int halftunes_wait_written(int descriptor, long long offset, long long length);

/// Reserves the blocks of [offset, offset + length) for the file open as `descriptor` without
/// changing its size (fallocate with FALLOC_FL_KEEP_SIZE). A file system that cannot reserve says
/// so (EOPNOTSUPP): nothing is written in its place, unlike posix_fallocate. Returns 0, or -1 with
/// errno set.
int halftunes_reserve(int descriptor, long long offset, long long length);

#endif
