/*
 * A C consumer of libspur_compat: it declares the functions as Slurm
 * 24.11's slurm.h and slurm_errno.h declare them, links the library by its
 * name and prints what each call gives, one line per call (compared with
 * abi.expected by tests/c_abi.rs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

typedef struct hostlist hostlist_t;

extern char *slurm_strerror(int errnum);
extern void slurm_xfree(void **item);
extern hostlist_t *slurm_hostlist_create(const char *hostlist);
extern void slurm_hostlist_destroy(hostlist_t *hl);
extern int slurm_hostlist_count(hostlist_t *hl);
extern int slurm_hostlist_push(hostlist_t *hl, const char *hosts);
extern int slurm_hostlist_push_host(hostlist_t *hl, const char *host);
extern char *slurm_hostlist_shift(hostlist_t *hl);
extern ssize_t slurm_hostlist_ranged_string(hostlist_t *hl, size_t n, char *buf);
extern char *slurm_hostlist_ranged_string_xmalloc(hostlist_t *hl);
extern void slurm_hostlist_uniq(hostlist_t *hl);

static void ranged(const char *what, hostlist_t *hl, size_t n)
{
	char buf[64];
	ssize_t rc = slurm_hostlist_ranged_string(hl, n, buf);
	printf("%s: %zd \"%s\"\n", what, rc, buf);
}

int main(void)
{
	int errs[] = { 0, -1, 2017, 2, -5 };
	hostlist_t *hl, *bad;
	char *host, *text;

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		printf("strerror %d: %s\n", errs[i], slurm_strerror(errs[i]));

	hl = slurm_hostlist_create("gpu[01-03],login");
	printf("count: %d\n", slurm_hostlist_count(hl));
	printf("push: %d\n", slurm_hostlist_push(hl, "gpu[04-05]"));
	printf("push bad: %d\n", slurm_hostlist_push(hl, "gpu[9-"));
	printf("push_host: %d\n", slurm_hostlist_push_host(hl, "gpu01"));
	ranged("ranged", hl, 64);
	ranged("ranged in 8 bytes", hl, 8);

	while ((host = slurm_hostlist_shift(hl)) && host[0] != 'l') {
		printf("shift: %s\n", host);
		free(host);
	}
	printf("shift: %s\n", host);
	free(host);
	slurm_hostlist_uniq(hl);
	text = slurm_hostlist_ranged_string_xmalloc(hl);
	printf("uniq: %s, count %d\n", text, slurm_hostlist_count(hl));
	slurm_xfree((void **) &text);
	printf("after xfree: %s\n", text ? "not NULL" : "NULL");
	slurm_hostlist_destroy(hl);

	bad = slurm_hostlist_create("n[3-1]");
	printf("create bad: %s\n", bad ? "a list" : "NULL");
	printf("count NULL: %d\n", slurm_hostlist_count(NULL));
	slurm_hostlist_destroy(NULL);
	return 0;
}
