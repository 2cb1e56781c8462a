/*
 * The first process inside the sandbox: runs the program under its own uid, reaps every
 * descendant, and reports the CPU time and peak memory of the whole tree.
 *
 * usage: runner REPORT_FD UID GID -- PROGRAM [ARGS...]
 *
 * The runner is uid 0 of the sandbox with only CAP_SETUID, CAP_SETGID and CAP_KILL (bwrap
 * --cap-add); the program is UID/GID with no capability at all, so it can neither signal
 * nor trace the runner: a program that kills its parent gets EPERM.
 *
 * 1. Become a child subreaper, so orphans (daemons, double forks) come back to us.
 * 2. Fork; the child raises its OOM score to the most (the kernel's OOM killer, the run's
 *    memory cgroup's included, takes the program before its supervisor; lowering it again
 *    only brings it level with the runner, whose few hundred KB make it the last choice),
 *    drops to UID/GID and execs PROGRAM. A failure before the exec is written to a
 *    close-on-exec pipe: a set-up error, not the program's.
 * 3. Wait for it; then kill everything else still alive in the PID namespace, reap it all.
 * 4. Write to REPORT_FD, an fd inherited from outside the sandbox that the program never has:
 *      "exit STATUS UTIME_US STIME_US MAXRSS_KB"  the program ran
 *      "setup STAGE ERRNO"                        it could not be started
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void fail(int err_fd, const char *stage) {
    dprintf(err_fd, "%s %d", stage, errno);
    _exit(127);
}

static void start_program(int err_fd, uid_t uid, gid_t gid, char **argv) {
    int score = open("/proc/self/oom_score_adj", O_WRONLY);
    if (score < 0 || write(score, "1000", 4) != 4) fail(err_fd, "oom_score_adj");
    close(score);
    if (setgroups(0, NULL) != 0) fail(err_fd, "setgroups");
    if (setresgid(gid, gid, gid) != 0) fail(err_fd, "setgid");
    if (setresuid(uid, uid, uid) != 0) fail(err_fd, "setuid"); /* drops every capability */
    execvp(argv[0], argv); /* EAGAIN here: the slot uid is over RLIMIT_NPROC */
    fail(err_fd, "exec");
}

static void reap_all(void) {
    for (;;) {
        kill(-1, SIGKILL); /* again before each reap: a fork may have raced the last one */
        if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD) return;
    }
}

int main(int argc, char **argv) {
    if (argc < 6 || strcmp(argv[4], "--") != 0) {
        fprintf(stderr, "usage: runner REPORT_FD UID GID -- PROGRAM [ARGS...]\n");
        return 125;
    }
    int report_fd = atoi(argv[1]);
    uid_t uid = (uid_t)strtoul(argv[2], NULL, 10);
    gid_t gid = (gid_t)strtoul(argv[3], NULL, 10);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    int errors[2];
    if (pipe2(errors, O_CLOEXEC) != 0) {
        dprintf(report_fd, "setup pipe %d\n", errno);
        return 0;
    }
    pid_t child = fork();
    if (child < 0) {
        dprintf(report_fd, "setup fork %d\n", errno);
        return 0;
    }
    if (child == 0) {
        close(report_fd);
        close(errors[0]);
        start_program(errors[1], uid, gid, &argv[5]);
    }
    close(errors[1]);
    char setup_error[64] = {0};
    ssize_t got;
    while ((got = read(errors[0], setup_error, sizeof setup_error - 1)) < 0 && errno == EINTR) {}
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    reap_all();
    if (got > 0) {
        dprintf(report_fd, "setup %s\n", setup_error);
        return 0;
    }
    struct rusage usage;
    getrusage(RUSAGE_CHILDREN, &usage);
    dprintf(report_fd, "exit %d %ld %ld %ld\n", status,
            (long)usage.ru_utime.tv_sec * 1000000L + usage.ru_utime.tv_usec,
            (long)usage.ru_stime.tv_sec * 1000000L + usage.ru_stime.tv_usec,
            usage.ru_maxrss);
    close(report_fd);
    return 0;
}
