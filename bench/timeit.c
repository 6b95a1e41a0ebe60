/*
 * timeit.c - wall time of a command, run `runs` times one after another:
 * fork, exec, drain its stdout through a pipe (counting lines, so that no
 * tool can take a short cut for /dev/null), wait.  Prints one line:
 * median_us p90_us min_us lines_of_last_run.  The command's stderr passes
 * through.  Exit status other than 0 (or 1 with -1, for grep-like tools
 * that exit 1 on "no match") fails the measurement.
 *
 * Benchmark code only; the scripts under bench/ use it for every command
 * line they time so that all tools are timed the same way.
 *
 * Usage: timeit [-1] RUNS CMD [ARGS...]
 */
#define _POSIX_C_SOURCE 200809L
#include <sys/types.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"

/* Runs argv once; *lines = newlines on its stdout; returns exit status
 * or -1. */
static int
run_once(char **argv, long *lines, double *us)
{
	char buf[65536];
	double t0 = bench_now_us();
	int fd[2], status = 0;
	ssize_t r;
	pid_t pid;

	*lines = 0;
	if (pipe(fd) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fd[0]);
		if (dup2(fd[1], STDOUT_FILENO) < 0)
			_exit(127);
		close(fd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while ((r = read(fd[0], buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < r; i++)
			*lines += buf[i] == '\n';
	close(fd[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	*us = bench_now_us() - t0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int
main(int argc, char **argv)
{
	int allow1 = 0, runs, argi = 1;
	double *t;
	long lines = 0;

	if (argc > 1 && strcmp(argv[1], "-1") == 0) {
		allow1 = 1;
		argi++;
	}
	if (argc < argi + 2 || (runs = (int)strtol(argv[argi], NULL, 10)) < 1) {
		fprintf(stderr, "usage: timeit [-1] RUNS CMD [ARGS...]\n");
		return 2;
	}
	t = calloc((size_t)runs, sizeof(*t));
	if (t == NULL)
		return 1;
	for (int r = 0; r < runs; r++) {
		int st = run_once(&argv[argi + 1], &lines, &t[r]);

		if (st != 0 && !(allow1 && st == 1)) {
			fprintf(stderr, "timeit: %s exited with %d\n",
			        argv[argi + 1], st);
			free(t);
			return 1;
		}
	}
	printf("%.1f\t", bench_median(t, runs));
	printf("%.1f\t%.1f\t%ld\n", bench_percentile(t, runs, 90), t[0], lines);
	free(t);
	return 0;
}
