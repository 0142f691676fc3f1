// scripts/socket-floor's program: one file downloaded over plain HTTP/1.1 from 127.0.0.1 and
// written as halftunes' engine writes a large durable file, and nothing else — no HTTP client
// library, no journal, no event loop. What is left is the kernel's part (the socket's copy, the
// page cache's copy, write-back), which the engine cannot go under by its own code.
//
//   socket-floor OUT PORT PATH READ_BYTES WINDOW_MIB
//   socket-floor OUT PORT PATH READ_BYTES direct
//
// Reads the body READ_BYTES at a time into one buffer and writes each read to OUT. Its blocks are
// reserved once the length is known (fallocate, size kept). Every WINDOW_MIB MiB written, waits
// for the window before the last to be written and drops the pages of the two windows behind
// (sync_file_range, posix_fadvise DONTNEED): PartialFile's requests, made here on the one thread;
// WINDOW_MIB 0 writes it all and flushes once. Ends with fsync. Prints the seconds taken.
//
// `direct` writes around the page cache instead (O_DIRECT): each read copied into one of four
// aligned 2 MiB buffers in turn, a full buffer written by one of two writer threads while the
// next fills (up to three writes in flight), the last unaligned bytes through the page cache;
// then fsync. A way halftunes does not take: BENCHMARKS.md, levers 79–80.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int fail(const char *what) {
    perror(what);
    return 1;
}

// The direct way: buffers handed from the reading thread to the writers, by offset order.
enum { BUFFERS = 4, WRITERS = 2, BUFFER_BYTES = 2 << 20, ALIGN = 4096 };
enum slot { FREE, FULL, WRITING };
static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    char *bytes[BUFFERS];
    long long offset[BUFFERS];
    enum slot state[BUFFERS];
    int file, ended, failed;
} ring = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};

static void *write_buffers(void *unused) {
    (void)unused;
    pthread_mutex_lock(&ring.lock);
    for (;;) {
        int next = -1;
        for (int i = 0; i < BUFFERS; i++)
            if (ring.state[i] == FULL && (next < 0 || ring.offset[i] < ring.offset[next])) next = i;
        if (next < 0) {
            if (ring.ended) break;
            pthread_cond_wait(&ring.changed, &ring.lock);
            continue;
        }
        ring.state[next] = WRITING;
        pthread_mutex_unlock(&ring.lock);
        int failed = pwrite(ring.file, ring.bytes[next], BUFFER_BYTES, ring.offset[next]) != BUFFER_BYTES;
        pthread_mutex_lock(&ring.lock);
        ring.failed |= failed;
        ring.state[next] = FREE;
        pthread_cond_broadcast(&ring.changed);
    }
    pthread_mutex_unlock(&ring.lock);
    return NULL;
}

// Reads the body's `total` bytes from `sock` into the ring; writes them to `out` (made here).
static int download_direct(int sock, const char *out, long long total, size_t read_bytes) {
    ring.file = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_DIRECT, 0644);
    if (ring.file < 0) return fail("open");
    (void)fallocate(ring.file, FALLOC_FL_KEEP_SIZE, 0, total);
    for (int i = 0; i < BUFFERS; i++)
        if (posix_memalign((void **)&ring.bytes[i], ALIGN, BUFFER_BYTES) != 0) return fail("posix_memalign");
    pthread_t writers[WRITERS];
    for (int i = 0; i < WRITERS; i++) pthread_create(&writers[i], NULL, write_buffers, NULL);
    char *buffer = malloc(read_bytes);
    if (buffer == NULL) return fail("malloc");
    long long received = 0, filling_at = 0;
    int filling = -1;
    size_t filled = 0;
    while (received < total) {
        ssize_t got = read(sock, buffer, read_bytes);
        if (got <= 0) return fail("body");
        for (ssize_t done = 0; done < got;) {
            if (filling < 0) {
                pthread_mutex_lock(&ring.lock);
                while (filling < 0) {
                    for (int i = 0; i < BUFFERS && filling < 0; i++)
                        if (ring.state[i] == FREE) filling = i;
                    if (filling < 0) pthread_cond_wait(&ring.changed, &ring.lock);
                }
                pthread_mutex_unlock(&ring.lock);
                filled = 0;
                filling_at = received + done;
            }
            size_t take = BUFFER_BYTES - filled < (size_t)(got - done) ? BUFFER_BYTES - filled : (size_t)(got - done);
            memcpy(ring.bytes[filling] + filled, buffer + done, take);
            filled += take;
            done += (ssize_t)take;
            if (filled == BUFFER_BYTES) {
                pthread_mutex_lock(&ring.lock);
                ring.offset[filling] = filling_at;
                ring.state[filling] = FULL;
                pthread_cond_broadcast(&ring.changed);
                pthread_mutex_unlock(&ring.lock);
                filling = -1;
            }
        }
        received += got;
    }
    pthread_mutex_lock(&ring.lock);
    ring.ended = 1;
    pthread_cond_broadcast(&ring.changed);
    pthread_mutex_unlock(&ring.lock);
    for (int i = 0; i < WRITERS; i++) pthread_join(writers[i], NULL);
    if (ring.failed) return fail("pwrite");
    if (filling >= 0) {  // the last buffer: its aligned part direct, the rest through the page cache
        size_t aligned = filled & ~(size_t)(ALIGN - 1);
        if (aligned > 0 && pwrite(ring.file, ring.bytes[filling], aligned, filling_at) != (ssize_t)aligned)
            return fail("pwrite");
        int cached = open(out, O_WRONLY | O_CLOEXEC);
        if (cached < 0 || pwrite(cached, ring.bytes[filling] + aligned, filled - aligned,
                                 filling_at + (long long)aligned) != (ssize_t)(filled - aligned))
            return fail("pwrite the tail");
        close(cached);
    }
    if (fsync(ring.file) != 0) return fail("fsync");
    close(ring.file);
    free(buffer);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: socket-floor OUT PORT PATH READ_BYTES WINDOW_MIB|direct\n");
        return 2;
    }
    const char *out = argv[1], *path = argv[3];
    int port = atoi(argv[2]);
    size_t read_bytes = (size_t)atol(argv[4]);
    int direct = strcmp(argv[5], "direct") == 0;
    long long window = direct ? 0 : atoll(argv[5]) << 20;
    if (port <= 0 || read_bytes == 0 || window < 0) {
        fprintf(stderr, "socket-floor: bad port, read size or window\n");
        return 2;
    }
    double start = now();

    int sock = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (sock < 0 || connect(sock, (struct sockaddr *)&address, sizeof address) != 0) return fail("connect");
    char request[512];
    int length = snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
    if (length <= 0 || write(sock, request, (size_t)length) != length) return fail("send");

    // The head, a byte at a time (it is read once): its Content-Length.
    char head[8192];
    size_t used = 0;
    while (used < 4 || memcmp(head + used - 4, "\r\n\r\n", 4) != 0) {
        if (used == sizeof head - 1 || read(sock, head + used, 1) != 1) return fail("head");
        used++;
    }
    head[used] = 0;
    char *field = strcasestr(head, "\r\ncontent-length:");
    if (strncmp(head, "HTTP/1.1 200", 12) != 0 || field == NULL) {
        fprintf(stderr, "socket-floor: not a 200 with a Content-Length\n");
        return 1;
    }
    long long total = atoll(field + 17);
    if (direct) {
        if (download_direct(sock, out, total, read_bytes) != 0) return 1;
        close(sock);
        printf("%.3f\n", now() - start);
        return 0;
    }

    int file = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (file < 0) return fail("open");
    if (window > 0) (void)fallocate(file, FALLOC_FL_KEEP_SIZE, 0, total);
    char *buffer = malloc(read_bytes);
    if (buffer == NULL) return fail("malloc");

    long long written = 0, window_start = 0;
    while (written < total) {
        ssize_t got = read(sock, buffer, read_bytes);
        if (got <= 0) return fail("body");
        for (ssize_t done = 0; done < got;) {
            ssize_t put = write(file, buffer + done, (size_t)(got - done));
            if (put < 0) return fail("write");
            done += put;
        }
        written += got;
        if (window > 0 && written - window_start >= window) {
            long long from = window_start - 2 * window > 0 ? window_start - 2 * window : 0;
            long long settled = window_start - window;
            if (settled > from &&
                sync_file_range(file, from, settled - from,
                                SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) != 0)
                return fail("sync_file_range");
            (void)posix_fadvise(file, from, written - from, POSIX_FADV_DONTNEED);
            window_start = written;
        }
    }
    if (fsync(file) != 0) return fail("fsync");
    (void)posix_fadvise(file, 0, 0, POSIX_FADV_DONTNEED);
    close(file);
    close(sock);
    free(buffer);
    printf("%.3f\n", now() - start);
    return 0;
}
