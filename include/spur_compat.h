/* Spur's extensions to libslurm's API (libspur_compat). Written by cbindgen
 * from libspur_compat/src/ext.rs at build time: do not edit. Slurm's own
 * functions are declared by Slurm's headers (slurm/slurm.h). */

#ifndef SPUR_COMPAT_H
#define SPUR_COMPAT_H

#include <stdint.h>

/**
 * The library's version and the Slurm release whose ABI it carries, e.g.
 * `spur-compat 0.1.0 (Slurm 24.11 ABI, libslurm.so.42)`. The text belongs
 * to the library.
 */
const char *spur_compat_version(void);

/**
 * Which Spur cluster the library reaches: `ClusterName` of the slurm.conf
 * it read, then its controllers as `name(address):port`, e.g.
 * `spur host1(127.0.0.1):6817 host2(127.0.0.2):6817`. NULL (and errno set)
 * when no configuration could be read. Release it with `slurm_xfree`.
 */
char *spur_compat_cluster(void);

/**
 * Whether the library serves a function of libslurm: 1 when it does the
 * real thing (through the Spur cluster, or locally for helpers such as the
 * hostlist and bitstring functions), 0 when it is exported only to fail as
 * Slurm fails for a feature a site does not have (errno
 * `ESLURM_NOT_SUPPORTED`), -1 when the library does not export it.
 *
 * # Safety
 * `symbol` is NULL or a NUL-terminated string.
 */
int spur_compat_served(const char *symbol);

#endif  /* SPUR_COMPAT_H */
