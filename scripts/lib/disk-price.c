// What the disk alone charges for a download's durability: N files of SIZE bytes written by
// THREADS threads into one folder, each as halftunes writes it (a .part file, renamed into
// place), with each way of making them survive a power cut. No network, no journal: the floor
// under `halftunes download`'s default durability. Run by scripts/disk-price.
//
//   disk-price FOLDER N SIZE THREADS WAY
//
// WAY: none           write, close, rename (what --durability process-crash asks of the disk)
//      sync-once      none, then one syncfs at the end (what curl + sync does)
//      file           each file flushed (fsync) before its rename; the folder never
//      made-before    file, with every .part file made and flushed (its folder too) before the
//                     clock starts: a flush without its folder's. ext4 without a journal flushes
//                     the folder of a file made since its last flush with it; this way measures
//                     what that costs (not a way to keep a promise: the files exist beforehand)
//      file+folder    each file flushed, renamed, and its folder flushed
//      group          each file flushed; folder flushes shared by the renames that ask while one
//                     runs (group commit; halftunes before lever 56)
//      arrivals       group, and a folder flush about to start first waits for the files already
//                     flushing their bytes (lever 56: halftunes' way)
//      syncfs-group   as arrivals, but a file's bytes are flushed by a syncfs shared by the files
//                     that ask while one runs (one device flush for several files)
//      unnamed        no .part: a file with no name (O_TMPFILE) written and flushed, linked at its
//                     destination, flushed again, and its folder flushed as in arrivals. The second
//                     flush is what makes the link survive a power cut on ext4 without a journal:
//                     the link changes the file's inode (its link count), which a folder flush
//                     does not write (unless the two inodes share a block); without it, fsck
//                     would take the file for deleted
//      named          no .part: each file made at its destination, written, flushed, its folder
//                     flushed as in arrivals. What the .part and its rename cost; not a way to
//                     keep the promise: the name can reach the device before the bytes (a
//                     short file at the destination after a power cut)
//
// Prints: WAY seconds, data flushes, folder flushes.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// In order: each way from FILE_ONLY on flushes every file, from GROUP on shares folder flushes.
enum way { NONE, SYNC_ONCE, FILE_ONLY, MADE_BEFORE, FILE_FOLDER, GROUP, ARRIVALS, SYNCFS_GROUP, UNNAMED, NAMED };
static const char *names[] = {
    "none", "sync-once", "file", "made-before", "file+folder", "group", "arrivals", "syncfs-group", "unnamed", "named"};

static enum way way;
static int count, size, threads;
static const char *folder;
static char *bytes;
static atomic_int next_file;

// A group commit: a caller returns once an operation that began after its request has ended.
// With `arrivals`, a leader first waits for every file announced before it to arrive or withdraw.
struct group {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    long requested, covered, announced, lowest_pending;
    char *arrived;  // by announcement number
    int running, runs;
};
static struct group folder_group = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};
static struct group data_group = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};

static void flush_folder(void) {
    int descriptor = open(folder, O_RDONLY | O_DIRECTORY);
    fsync(descriptor);
    close(descriptor);
}

static void flush_file_system(void) {
    int descriptor = open(folder, O_RDONLY | O_DIRECTORY);
    syncfs(descriptor);
    close(descriptor);
}

// Under the lock: marks announcement `number` arrived and advances the lowest one pending.
static void arrive(struct group *group, long number) {
    group->arrived[number] = 1;
    while (group->lowest_pending <= group->announced && group->arrived[group->lowest_pending]) group->lowest_pending++;
    pthread_cond_broadcast(&group->changed);
}

static long announce(struct group *group) {
    pthread_mutex_lock(&group->lock);
    long number = ++group->announced;
    pthread_mutex_unlock(&group->lock);
    return number;
}

// Requests the group's operation (after `arrival` arrived, when it is not 0) and waits until one
// that began after the request has ended; `holds`: a leader waits for earlier announcements first.
static void commit(struct group *group, void (*operation)(void), long arrival, int holds) {
    pthread_mutex_lock(&group->lock);
    if (arrival) arrive(group, arrival);
    long ticket = ++group->requested;
    while (group->covered < ticket) {
        if (group->running) {
            pthread_cond_wait(&group->changed, &group->lock);
            continue;
        }
        group->running = 1;
        if (holds) {
            long up_to = group->announced;
            while (group->lowest_pending <= up_to) pthread_cond_wait(&group->changed, &group->lock);
        }
        long covering = group->requested;
        pthread_mutex_unlock(&group->lock);
        operation();
        pthread_mutex_lock(&group->lock);
        group->runs++;
        if (covering > group->covered) group->covered = covering;
        group->running = 0;
        pthread_cond_broadcast(&group->changed);
    }
    pthread_mutex_unlock(&group->lock);
}

// The made-before way's files: each .part made empty and flushed, then their folder flushed, so
// that no file is new to its folder when the timed writes flush it.
static void make_parts_before(void) {
    char part[4096];
    for (int index = 0; index < count; index++) {
        snprintf(part, sizeof part, "%s/%d.m4a.part", folder, index);
        int descriptor = open(part, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (descriptor < 0 || fsync(descriptor) != 0) {
            perror(part);
            exit(1);
        }
        close(descriptor);
    }
    flush_folder();
}

// The unnamed way's file: written and flushed with no name, linked into place, flushed again.
static void download_unnamed(const char *destination) {
    int descriptor = open(folder, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (descriptor < 0 || write(descriptor, bytes, size) != size) {
        perror("O_TMPFILE");
        exit(1);
    }
    long arrival = announce(&folder_group);
    fsync(descriptor);
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", descriptor);
    if (linkat(AT_FDCWD, self, AT_FDCWD, destination, AT_SYMLINK_FOLLOW) != 0) {
        perror(destination);
        exit(1);
    }
    fsync(descriptor);
    close(descriptor);
    commit(&folder_group, flush_folder, arrival, 1);
}

static void *download(void *unused) {
    (void)unused;
    char part[4096], destination[4096];
    int index;
    while ((index = atomic_fetch_add(&next_file, 1)) < count) {
        snprintf(destination, sizeof destination, "%s/%d.m4a", folder, index);
        if (way == UNNAMED) {
            download_unnamed(destination);
            continue;
        }
        // The named way writes at the destination itself: no .part, no rename.
        snprintf(part, sizeof part, "%s/%d.m4a%s", folder, index, way == NAMED ? "" : ".part");
        int descriptor = open(part, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (descriptor < 0 || write(descriptor, bytes, size) != size) {
            perror(part);
            exit(1);
        }
        long arrival = way >= ARRIVALS ? announce(&folder_group) : 0;
        if (way == SYNCFS_GROUP) {
            close(descriptor);
            commit(&data_group, flush_file_system, 0, 0);
        } else {
            if (way >= FILE_ONLY) fsync(descriptor);
            close(descriptor);
        }
        if (way != NAMED) rename(part, destination);
        if (way == FILE_FOLDER) flush_folder();
        if (way >= GROUP) commit(&folder_group, flush_folder, arrival, way >= ARRIVALS);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: disk-price FOLDER N SIZE THREADS WAY\n");
        return 2;
    }
    folder = argv[1];
    count = atoi(argv[2]);
    size = atoi(argv[3]);
    threads = atoi(argv[4]);
    way = NONE;
    while (way <= NAMED && strcmp(names[way], argv[5]) != 0) way++;
    if (count < 1 || size < 1 || threads < 1 || threads > 64 || way > NAMED) {
        fprintf(stderr, "disk-price: bad arguments\n");
        return 2;
    }
    bytes = malloc(size);
    memset(bytes, 'x', size);
    folder_group.arrived = calloc(count + 2, 1);
    folder_group.lowest_pending = 1;
    if (way == MADE_BEFORE) make_parts_before();
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pthread_t workers[64];
    for (int i = 0; i < threads; i++) pthread_create(&workers[i], NULL, download, NULL);
    for (int i = 0; i < threads; i++) pthread_join(workers[i], NULL);
    if (way == SYNC_ONCE) flush_file_system();
    clock_gettime(CLOCK_MONOTONIC, &end);
    int data = way == UNNAMED ? 2 * count : way == SYNCFS_GROUP ? data_group.runs : way >= FILE_ONLY ? count : way == SYNC_ONCE;
    int folders = way == FILE_FOLDER ? count : folder_group.runs;
    printf("%s %.4f %d %d\n", names[way], (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9, data, folders);
    return 0;
}
