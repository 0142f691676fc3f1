// bptrace FUNCS OUT -- PROGRAM ARGS...: runs PROGRAM with a one-shot breakpoint at the start of each
// function listed in FUNCS ("hexaddress name" lines, addresses as nm prints them for PROGRAM) and
// writes to OUT, in the order first run, the name of each function that ran (in any thread). Each
// breakpoint is removed when first hit, so a function costs one trap however often it runs.
// Used by scripts/layout-order; exits with PROGRAM's status.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct { uint64_t addr; char *name; unsigned char orig; int hit; } fn_t;
static fn_t *fns; static size_t nfns;
static int cmp(const void *a, const void *b) { uint64_t x = ((fn_t *)a)->addr, y = ((fn_t *)b)->addr; return x < y ? -1 : x > y; }
static fn_t *find(uint64_t a) {
  size_t lo = 0, hi = nfns;
  while (lo < hi) { size_t m = (lo + hi) / 2; if (fns[m].addr < a) lo = m + 1; else hi = m; }
  return lo < nfns && fns[lo].addr == a ? &fns[lo] : NULL;
}
static uint64_t load_base(pid_t pid, const char *prog) {
  char path[64], line[4096], real[4096]; snprintf(path, sizeof path, "/proc/%d/maps", pid);
  if (!realpath(prog, real)) return 0;
  FILE *f = fopen(path, "r"); uint64_t base = 0;
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, off; char file[4096] = "";
    if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %4095s", &lo, &off, file) == 3 && !strcmp(file, real)) {
      base = lo - off; break;
    }
  }
  if (f) fclose(f);
  return base;
}
static int poke_byte(pid_t pid, uint64_t at, unsigned char b, unsigned char *old) {
  errno = 0; long w = ptrace(PTRACE_PEEKTEXT, pid, (void *)at, 0); if (errno) return -1;
  if (old) *old = (unsigned char)(w & 0xff);
  w = (w & ~0xffL) | b; return ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)w) == 0 ? 0 : -1;
}
int main(int argc, char **argv) {
  if (argc < 5 || strcmp(argv[3], "--")) { fprintf(stderr, "usage: bptrace FUNCS OUT -- PROGRAM ARGS...\n"); return 2; }
  FILE *out = fopen(argv[2], "w"); if (!out) { perror(argv[2]); return 2; }
  FILE *f = fopen(argv[1], "r"); if (!f) { perror(argv[1]); return 2; }
  size_t cap = 1 << 16; fns = malloc(cap * sizeof *fns); char line[8192];
  while (fgets(line, sizeof line, f)) {
    char *sp = strchr(line, ' '); if (!sp) continue; *sp = 0; sp[strcspn(sp + 1, "\n") + 1] = 0;
    if (nfns == cap) fns = realloc(fns, (cap *= 2) * sizeof *fns);
    fns[nfns].addr = strtoull(line, NULL, 16); fns[nfns].name = strdup(sp + 1); fns[nfns].hit = 0; nfns++;
  }
  fclose(f); qsort(fns, nfns, sizeof *fns, cmp);
  size_t u = 0; for (size_t i = 0; i < nfns; i++) if (!u || fns[i].addr != fns[u - 1].addr) fns[u++] = fns[i]; nfns = u;
  pid_t child = fork();
  if (child == 0) { ptrace(PTRACE_TRACEME, 0, 0, 0); execvp(argv[4], argv + 4); perror("exec"); _exit(127); }
  int st; waitpid(child, &st, 0);
  if (!WIFSTOPPED(st)) { fprintf(stderr, "bptrace: the program did not start\n"); return 1; }
  ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL);
  uint64_t base = load_base(child, argv[4]);
  size_t armed = 0;
  for (size_t i = 0; i < nfns; i++) { fns[i].addr += base; if (poke_byte(child, fns[i].addr, 0xCC, &fns[i].orig) == 0) armed++; else fns[i].hit = -1; }
  fprintf(stderr, "bptrace: %zu breakpoints at base %#lx\n", armed, (unsigned long)base);
  ptrace(PTRACE_CONT, child, 0, 0);
  int status = 0; size_t hits = 0;
  for (;;) {
    pid_t p = waitpid(-1, &st, __WALL);
    if (p < 0) break;
    if (WIFEXITED(st) || WIFSIGNALED(st)) { if (p == child) status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); continue; }
    if (!WIFSTOPPED(st)) continue;
    int sig = WSTOPSIG(st), deliver = 0;
    if (sig == SIGTRAP && (st >> 16) == 0) {
      struct user_regs_struct r; ptrace(PTRACE_GETREGS, p, 0, &r);
      fn_t *fn = find(r.rip - 1);
      if (fn) {
        if (!fn->hit) { poke_byte(p, fn->addr, fn->orig, NULL); fn->hit = 1; hits++; fprintf(out, "%s\n", fn->name); }
        r.rip -= 1; ptrace(PTRACE_SETREGS, p, 0, &r);
      } else deliver = sig;
    } else if (sig == SIGTRAP) {
      deliver = 0;  // a clone event: the new thread arrives stopped on its own
    } else if (sig == SIGSTOP && (st >> 16) == 0) {
      deliver = 0;  // a new thread's first stop
    } else deliver = sig;
    ptrace(PTRACE_CONT, p, 0, (void *)(long)deliver);
  }
  fclose(out); fprintf(stderr, "bptrace: %zu functions ran\n", hits);
  return status;
}
