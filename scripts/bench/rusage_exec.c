/*
 * rusage_exec: runs one command and reports its resource usage, for
 * scripts/bench/run_bench.py.
 *
 *   rusage_exec PROGRAM [ARG...]
 *
 * Why not os.wait4 straight from Python: on Linux a process's ru_maxrss
 * starts at the high-water mark of the address space it exec'd from (exec
 * keeps the old mm's peak in signal->maxrss), so every child of the Python
 * driver would report at least Python's ~8-60 MiB. This helper is small
 * (statically linked when possible, well under 1 MiB resident), forks, execs
 * PROGRAM with the same stdin/stdout/stderr, reaps it with wait4 and writes
 *
 *   <user+sys CPU s> <wall s> <peak RSS KiB> <exit code, or -signal>
 *
 * to file descriptor 3, which run_bench.py passes in (and which PROGRAM does
 * not inherit). Exit status: 0 when the report was written, 127 on failure to
 * run PROGRAM (also reported as exit code 127).
 *
 * Build: cc -O2 [-static] -o rusage_exec rusage_exec.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PROGRAM [ARG...]  (report on fd 3)\n", argv[0]);
        return 2;
    }
    if (fcntl(3, F_SETFD, FD_CLOEXEC) != 0) {
        fprintf(stderr, "rusage_exec: fd 3 is not open: %s\n", strerror(errno));
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("rusage_exec: fork");
        return 127;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        fprintf(stderr, "rusage_exec: cannot run %s: %s\n", argv[1], strerror(errno));
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            perror("rusage_exec: wait4");
            return 127;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    dprintf(3, "%.6f %.6f %ld %d\n", seconds(ru.ru_utime) + seconds(ru.ru_stime), wall, ru.ru_maxrss, code);
    return 0;
}
