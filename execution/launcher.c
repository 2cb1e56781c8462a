/*
 * What starts bwrap, outside the sandbox, as root: a new session, the run's cgroup joined
 * (so that every process of the run is counted from the first) and the limits the program
 * inherits, then exec.
 *
 * usage: launcher AS_BYTES CPU_S FSIZE_BYTES NOFILE NPROC [JOIN_FILE...] -- COMMAND [ARGS...]
 *
 * AS_BYTES 0: no address-space cap (a memory cgroup caps the tree instead). CPU_S is the
 * backstop: SIGXCPU at CPU_S, SIGKILL a second later. Each JOIN_FILE (a cgroup's
 * cgroup.procs or tasks) gets this process's pid. A failure is one line on stderr and exit
 * status 126: the run then has no runner's report, a sandbox error, never a verdict.
 *
 * Why a program and not Python's preexec_fn: a preexec_fn makes subprocess fork the whole
 * calling process (a Celery worker or a test session of several hundred MB: 60 ms per run
 * here, for copying page tables), where without one it uses vfork.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void fail(const char *stage, const char *what) {
    fprintf(stderr, "codeopt launcher: %s %s: %s\n", stage, what, strerror(errno));
    _exit(126);
}

static rlim_t number(const char *text) {
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || end == text) {
        errno = EINVAL;
        fail("argument", text);
    }
    return (rlim_t)value;
}

static void limit(int resource, rlim_t soft, rlim_t hard, const char *name) {
    struct rlimit value = {soft, hard};
    if (setrlimit(resource, &value) != 0) fail("setrlimit", name);
}

int main(int argc, char **argv) {
    if (argc < 8) {
        errno = EINVAL;
        fail("usage", "launcher AS CPU FSIZE NOFILE NPROC [JOIN...] -- COMMAND");
    }
    rlim_t as = number(argv[1]), cpu = number(argv[2]), fsize = number(argv[3]);
    rlim_t nofile = number(argv[4]), nproc = number(argv[5]);
    int i = 6;
    if (setsid() < 0) fail("setsid", "");
    char pid[32];
    int length = snprintf(pid, sizeof pid, "%d", (int)getpid());
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        /* O_CREAT: a cgroup's files exist already; a tree of plain files stands in for one
           in tests/test_sandbox_cgroup_v2.py */
        int fd = open(argv[i], O_WRONLY | O_CREAT, 0644);
        if (fd < 0) fail("open", argv[i]);
        if (write(fd, pid, length) != length) fail("join", argv[i]);
        close(fd);
    }
    if (i + 1 >= argc) {
        errno = EINVAL;
        fail("usage", "no command after --");
    }
    if (as > 0) limit(RLIMIT_AS, as, as, "RLIMIT_AS");
    limit(RLIMIT_CPU, cpu, cpu + 1, "RLIMIT_CPU");
    limit(RLIMIT_FSIZE, fsize, fsize, "RLIMIT_FSIZE");
    limit(RLIMIT_NOFILE, nofile, nofile, "RLIMIT_NOFILE");
    limit(RLIMIT_CORE, 0, 0, "RLIMIT_CORE");
    /* root (bwrap, the runner) is exempt; the program's slot uid is counted */
    limit(RLIMIT_NPROC, nproc, nproc, "RLIMIT_NPROC");
    execv(argv[i + 1], argv + i + 1);
    fail("exec", argv[i + 1]);
    return 126;
}
