/*
 * replay.c - runs a fuzz target's corpus as an ordinary test: every file in
 * the directories given on the command line is fed to
 * LLVMFuzzerTestOneInput once.  A crash or sanitizer report fails the test;
 * an empty or missing corpus fails too, so the replay can never pass
 * vacuously.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_fs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (d == NULL) {
		fprintf(stderr, "replay: cannot open corpus %s\n", dir);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		char *path;
		char *buf = NULL;
		size_t len = 0;

		if (de->d_name[0] == '.')
			continue;
		path = cg_path_join(dir, de->d_name);
		if (path == NULL ||
		    cg_file_read(path, 64u << 20, &buf, &len, NULL) != 0) {
			fprintf(stderr, "replay: cannot read %s\n",
			        path ? path : de->d_name);
			free(path);
			closedir(d);
			return -1;
		}
		(void)LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
		free(buf);
		free(path);
		n++;
	}
	closedir(d);
	return n;
}

int
main(int argc, char **argv)
{
	int total = 0;

	for (int i = 1; i < argc; i++) {
		int n = replay_dir(argv[i]);

		if (n < 0)
			return 1;
		total += n;
	}
	if (total == 0) {
		fprintf(stderr, "replay: no corpus inputs\n");
		return 1;
	}
	printf("replayed %d inputs\n", total);
	return 0;
}
