// scripts/socket-floor's program: one file downloaded over plain HTTP/1.1 from 127.0.0.1 and
// written as halftunes' engine writes a large durable file, and nothing else — no HTTP client
// library, no journal, no event loop. What is left is the kernel's part (the socket's copy, the
// page cache's copy, write-back), which the engine cannot go under by its own code.
//
//   socket-floor OUT PORT PATH READ_BYTES WINDOW_MIB
//
// Reads the body READ_BYTES at a time into one buffer and writes each read to OUT. Its blocks are
// reserved once the length is known (fallocate, size kept). Every WINDOW_MIB MiB written, waits
// for the window before the last to be written and drops the pages of the two windows behind
// (sync_file_range, posix_fadvise DONTNEED): PartialFile's requests, made here on the one thread;
// WINDOW_MIB 0 writes it all and flushes once. Ends with fsync. Prints the seconds taken.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
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

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: socket-floor OUT PORT PATH READ_BYTES WINDOW_MIB\n");
        return 2;
    }
    const char *out = argv[1], *path = argv[3];
    int port = atoi(argv[2]);
    size_t read_bytes = (size_t)atol(argv[4]);
    long long window = atoll(argv[5]) << 20;
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
