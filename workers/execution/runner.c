/*
 * The first process inside the sandbox: runs the program, reaps every descendant, and
 * reports the CPU time and peak memory of the whole tree.
 *
 * usage: runner REPORT_FD -- PROGRAM [ARGS...]
 *
 * 1. Become a child subreaper, so orphans (daemons, double forks) come back to us.
 * 2. Fork and exec PROGRAM; wait for it.
 * 3. Kill everything else still alive in the PID namespace, reap it all.
 * 4. Write "status utime_us stime_us maxrss_kb" to REPORT_FD, an fd inherited from outside
 *    the sandbox that the program cannot reach once we close it before the exec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: runner REPORT_FD -- PROGRAM [ARGS...]\n");
        return 125;
    }
    int report_fd = atoi(argv[1]);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t child = fork();
    if (child < 0) { perror("fork"); return 125; }
    if (child == 0) {
        close(report_fd);
        execvp(argv[3], &argv[3]);
        fprintf(stderr, "exec %s: %s\n", argv[3], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    kill(-1, SIGKILL);  /* everything the program left behind in this namespace */
    while (wait(NULL) > 0 || errno == EINTR) {}
    struct rusage usage;
    getrusage(RUSAGE_CHILDREN, &usage);
    dprintf(report_fd, "%d %ld %ld %ld\n", status,
            (long)usage.ru_utime.tv_sec * 1000000L + usage.ru_utime.tv_usec,
            (long)usage.ru_stime.tv_sec * 1000000L + usage.ru_stime.tv_usec,
            usage.ru_maxrss);
    close(report_fd);
    return 0;
}
