/* What the library gives for Slurm's helper functions, printed: run against
 * Slurm's own library and against Spur's, and the two outputs compared byte
 * for byte (slurm-tests/tests/compat_consumers.rs with Debian 12's
 * libslurm.so.38, compat_chroot.rs with Debian 13's libslurm.so.42).
 * Compiled against either release's slurm.h; the internal functions are
 * declared here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
/* (23.02 renamed the handle types: the same ABI) */
typedef list_t *List;
typedef list_itr_t *ListIterator;
typedef hostlist_t *hl_t;
/* (and 24.11 the reason functions) */
#define slurm_job_reason_string slurm_job_state_reason_string
#define slurm_job_reason_num slurm_job_state_reason_num
#else
typedef hostlist_t hl_t;
#endif
extern char *slurm_job_reason_string(enum job_state_reason inx);
extern enum job_state_reason slurm_job_reason_num(char *reason);
extern void slurm_accounting_enforce_string(uint16_t enforce, char *str, int str_len);
extern char *slurm_reservation_flags_string(reserve_info_t *r);
extern char *slurm_node_state_string_complete(uint32_t inx);
extern char *slurm_step_layout_type_name(task_dist_states_t d);
extern void slurm_sprint_cpu_bind_type(char *str, cpu_bind_type_t t);
extern char *slurm_xstr_mem_bind_type(mem_bind_type_t t);
extern int slurm_addto_char_list(List l, char *names);
extern int slurm_addto_char_list_with_case(List l, char *names, bool lower);
extern int slurm_addto_step_list(List l, char *names);
extern uint64_t slurmdb_find_tres_count_in_string(char *s, int id);
extern int slurmdb_report_set_start_end_time(time_t *s, time_t *e);
extern char *slurm_char_list_to_xstr(List l);
extern void slurm_xfree(void **);
extern void slurm_xfree_ptr(void *);
extern bitstr_t *slurm_bit_alloc(int64_t nbits);
extern void slurm_bit_set(bitstr_t *b, int64_t bit);
extern void slurm_bit_nset(bitstr_t *b, int64_t start, int64_t stop);
extern int slurm_bit_test(bitstr_t *b, int64_t bit);
extern char *slurm_bit_fmt(char *str, int32_t len, bitstr_t *b);
extern int slurm_bit_unfmt(bitstr_t *b, char *str);
extern int64_t slurm_bit_fls(bitstr_t *b);
extern int64_t slurm_bit_ffs(bitstr_t *b);
extern int64_t slurm_bit_set_count(bitstr_t *b);
extern char *slurm_bit_fmt_hexmask(bitstr_t *b);
extern void slurm_bit_free(bitstr_t **b);
extern char *slurm_job_state_string(uint32_t inx);
extern char *slurm_job_state_string_compact(uint32_t inx);
extern char *slurm_node_state_string(uint32_t inx);
extern char *slurm_node_state_string_compact(uint32_t inx);
extern void slurm_secs2time_str(time_t time, char *string, int size);
extern void slurm_mins2time_str(time_t time, char *string, int size);
extern int slurm_time_str2mins(const char *string);
extern char *slurm_preempt_mode_string(uint16_t preempt_mode);
static void xf(char *p) { void *v = p; slurm_xfree(&v); }
static void pl(const char *tag, List l, int n) {
  ListIterator it = slurm_list_iterator_create(l); char *s;
  printf("%s n=%d:", tag, n);
  while ((s = slurm_list_next(it))) printf(" [%s]", s);
  printf("\n"); slurm_list_iterator_destroy(it);
}
static void helpers(void) {
  for (int e = -5; e < 10000; e++) printf("strerror %d %s\n", e, slurm_strerror(e));
  /* (not "bad[": Slurm reads an unclosed bracket as a host "bad]", Spur refuses it) */
  const char *hl[] = {"n[1-3,5],m2", "a[01-10]", "x,y,x", "c[1-2]-[3-4]", "", NULL};
  for (int k = 0; hl[k]; k++) {
    hl_t h = slurm_hostlist_create(hl[k]);
    if (!h) { printf("hostlist %s NULL\n", hl[k]); continue; }
    slurm_hostlist_push(h, "n4");
    char *r = slurm_hostlist_ranged_string_xmalloc(h);
    printf("hostlist %s count %d ranged %s", hl[k], slurm_hostlist_count(h), r);
    xf(r);
    slurm_hostlist_uniq(h);
    char *f;
    while ((f = slurm_hostlist_shift(h))) { printf(" %s", f); free(f); }
    printf("\n");
    slurm_hostlist_destroy(h);
  }
  const char *bits[] = {"0-3,5", "1,3,64-66", "", "7", NULL};
  for (int k = 0; bits[k]; k++) {
    bitstr_t *b = slurm_bit_alloc(70);
    char in[64]; strcpy(in, bits[k]);
    int rc = slurm_bit_unfmt(b, in);
    slurm_bit_set(b, 69);
    char out[128];
    char *hex = slurm_bit_fmt_hexmask(b);
    printf("bits %s rc %d fmt %s ffs %lld fls %lld count %lld test5 %d hex %s\n", bits[k], rc,
           slurm_bit_fmt(out, sizeof out, b), (long long)slurm_bit_ffs(b), (long long)slurm_bit_fls(b),
           (long long)slurm_bit_set_count(b), slurm_bit_test(b, 5), hex);
    xf(hex);
    slurm_bit_free(&b);
  }
  for (uint32_t s = 0; s < 12; s++)
    printf("job state %u %s %s | %s %s\n", s, slurm_job_state_string(s), slurm_job_state_string_compact(s),
           slurm_job_state_string(s | 0x8000), slurm_job_state_string(s | 0x200000));
  for (uint32_t s = 0; s < 7; s++)
    printf("node state %u %s %s %s %s\n", s, slurm_node_state_string(s), slurm_node_state_string_compact(s),
           slurm_node_state_string(s | 0x200), slurm_node_state_string(s | 0x800));
  long secs[] = {0, 59, 61, 3600, 86399, 86400, 90061, 1000000};
  for (unsigned k = 0; k < sizeof secs / sizeof *secs; k++) {
    char a[64], b[64];
    slurm_secs2time_str(secs[k], a, sizeof a);
    slurm_mins2time_str(secs[k], b, sizeof b);
    printf("time %ld %s %s\n", secs[k], a, b);
  }
  const char *ts2[] = {"10", "1:00", "1:00:00", "2-3", "2-3:04", "2-3:04:05", "INFINITE", "UNLIMITED", "-1", "x", "", NULL};
  for (int k = 0; ts2[k]; k++) printf("mins %s %d\n", ts2[k], slurm_time_str2mins(ts2[k]));
  for (uint16_t m = 0; m < 10; m++) printf("preempt %u %s\n", m, slurm_preempt_mode_string(m));
}

/* The print/sprint family on records built here: what `scontrol show` prints
 * of them. Times are fixed (a running job's start in the future: its run time
 * does not depend on when the program runs). */
static void unset(job_info_t *j) {
  memset(j, 0, sizeof *j);
  j->nice = NICE_OFFSET; j->time_limit = NO_VAL; j->num_tasks = NO_VAL; j->cpus_per_task = NO_VAL16;
  j->boards_per_node = NO_VAL16; j->sockets_per_board = NO_VAL16; j->cores_per_socket = NO_VAL16;
  j->threads_per_core = NO_VAL16; j->sockets_per_node = NO_VAL16; j->ntasks_per_node = NO_VAL16;
  j->ntasks_per_board = NO_VAL16; j->ntasks_per_socket = NO_VAL16; j->ntasks_per_core = NO_VAL16;
  j->core_spec = NO_VAL16; j->cpu_freq_min = NO_VAL; j->cpu_freq_max = NO_VAL; j->cpu_freq_gov = NO_VAL;
  j->shared = NO_VAL16; j->array_task_id = NO_VAL;
}
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
/* (24.11's library has no job printing) */
static void show_job(const char *tag, job_info_t *j) {
  for (int one = 0; one < 2; one++) {
    char *s = slurm_sprint_job_info(j, one);
    printf("== %s sprint one_liner=%d\n%s", tag, one, s ? s : "(NULL)\n");
    xf(s);
    printf("== %s print one_liner=%d\n", tag, one);
    fflush(stdout);
    slurm_print_job_info(stdout, j, one);
    fflush(stdout);
  }
}
#endif
static void sprint_jobs(void) {
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
  job_info_t j[6];
  char reason[] = "held by\tthe admin\n";
  unset(&j[0]); j[0].job_id = 5;
  /* a pending array, held, with most optional lines */
  unset(&j[1]); j[1].job_id = 20; j[1].array_job_id = 20; j[1].array_task_str = "1-5%2"; j[1].array_max_tasks = 2;
  j[1].name = "arr"; j[1].user_id = 0; j[1].group_id = 0; j[1].priority = 0; j[1].nice = NICE_OFFSET - 5;
  j[1].account = "acct"; j[1].qos = "normal"; j[1].wckey = "wk"; j[1].job_state = JOB_PENDING;
  j[1].state_reason = WAIT_HELD_USER; j[1].dependency = "afterok:3(unfulfilled)"; j[1].requeue = 1;
  j[1].batch_flag = 1; j[1].time_limit = 90; j[1].time_min = 30; j[1].submit_time = 1700000000;
  j[1].eligible_time = 1700000100; j[1].start_time = 1700003600; j[1].end_time = 1700009000;
  j[1].deadline = 1700100000; j[1].resize_time = 1700000200; j[1].bitflags = CRON_JOB | KILL_INV_DEP | SPREAD_JOB | BACKFILL_SCHED | BACKFILL_LAST;
  j[1].cronspec = "*/5 * * * *"; j[1].preemptable_time = 1700000300; j[1].last_sched_eval = 1700000400;
  j[1].partition = "debug"; j[1].alloc_node = "login1"; j[1].alloc_sid = 4242; j[1].req_nodes = "n[1-2]";
  j[1].exc_nodes = "n9"; j[1].sched_nodes = "n[1-2]"; j[1].batch_features = "bf"; j[1].num_nodes = 4; j[1].max_nodes = 3;
  j[1].num_cpus = 8; j[1].max_cpus = 16; j[1].num_tasks = 8; j[1].cpus_per_task = 2; j[1].boards_per_node = 1;
  j[1].sockets_per_board = 2; j[1].cores_per_socket = 4; j[1].threads_per_core = 1; j[1].tres_req_str = "cpu=8,mem=2G,node=3,billing=8";
  j[1].sockets_per_node = 2; j[1].ntasks_per_node = 4; j[1].ntasks_per_board = 2; j[1].ntasks_per_socket = INFINITE16;
  j[1].ntasks_per_core = 1; j[1].core_spec = CORE_SPEC_THREAD | 2; j[1].pn_min_cpus = 2; j[1].pn_min_memory = 1024 | MEM_PER_CPU;
  j[1].pn_min_tmp_disk = 2048; j[1].features = "a&b"; j[1].delay_boot = 300; j[1].cluster_features = "cf"; j[1].prefer = "fast";
  j[1].resv_name = "maint"; j[1].shared = JOB_SHARED_USER; j[1].contiguous = 1; j[1].licenses = "lic:2"; j[1].network = "ib";
  j[1].command = "/home/u/job.sh a b"; j[1].work_dir = "/tmp"; j[1].admin_comment = "adm"; j[1].system_comment = "sys";
  j[1].comment = "hello world"; j[1].std_out = "%x-%A_%a.out"; j[1].req_switch = 2; j[1].wait4switch = 600;
  j[1].burst_buffer = "bb"; j[1].burst_buffer_state = "staged"; j[1].cpu_freq_min = 1000000; j[1].cpu_freq_max = CPU_FREQ_HIGH;
  j[1].cpu_freq_gov = CPU_FREQ_PERFORMANCE; j[1].power_flags = SLURM_POWER_FLAGS_LEVEL; j[1].cpus_per_tres = "gres/gpu:2";
  j[1].mem_per_tres = "gres/gpu:100"; j[1].tres_bind = "gres/gpu:closest"; j[1].tres_freq = "gpu:high"; j[1].tres_per_job = "gres/gpu:4";
  j[1].tres_per_node = "gres/gpu:2"; j[1].tres_per_socket = "gres/gpu:1"; j[1].tres_per_task = "cpu=2"; j[1].mail_user = "u@x";
  j[1].mail_type = MAIL_JOB_END | MAIL_JOB_BEGIN | MAIL_JOB_TIME80; j[1].ntasks_per_tres = 2; j[1].container = "/c";
  j[1].selinux_context = "ctx"; j[1].mcs_label = "mcs";
  /* a running job (its start in the future), an unknown user, unlimited */
  unset(&j[2]); j[2].job_id = 21; j[2].array_job_id = 20; j[2].array_task_id = 3; j[2].name = "arr";
  j[2].user_id = 54321; j[2].group_id = 54321; j[2].job_state = JOB_RUNNING; j[2].time_limit = INFINITE;
  j[2].start_time = 4000000000; j[2].end_time = 4100000000; j[2].nodes = "n[3,1-2]"; j[2].batch_host = "n1";
  j[2].num_nodes = 3; j[2].max_nodes = 5; j[2].num_cpus = 3; j[2].tres_req_str = "cpu=3"; j[2].tres_alloc_str = "cpu=3,node=3";
  j[2].pn_min_memory = 500; j[2].shared = JOB_SHARED_NONE; j[2].bitflags = NO_KILL_INV_DEP | GRES_ENFORCE_BIND;
  j[2].cpu_freq_max = CPU_FREQ_LOW; j[2].mail_type = MAIL_JOB_FAIL; j[2].ntasks_per_tres = NO_VAL16;
  /* a failed batch job, a signal, a het job, detail flags without resources */
  unset(&j[3]); j[3].job_id = 30; j[3].het_job_id = 30; j[3].het_job_offset = 1; j[3].het_job_id_set = "30-31";
  j[3].name = "het"; j[3].job_state = JOB_FAILED | JOB_COMPLETING; j[3].state_desc = reason; j[3].exit_code = 9;
  j[3].derived_ec = 256 * 3; j[3].show_flags = SHOW_DETAIL; j[3].batch_flag = 1; j[3].restart_cnt = 2; j[3].reboot = 1;
  j[3].time_limit = 61; j[3].submit_time = 1700000000; j[3].start_time = 1700000060; j[3].end_time = 1700000125;
  j[3].work_dir = "/var/tmp"; j[3].std_err = "err-%j.txt"; j[3].std_in = "/dev/zero"; j[3].core_spec = 1;
  j[3].fed_siblings_active = 1; j[3].fed_origin_str = "c1"; j[3].fed_siblings_active_str = "c1";
  j[3].bitflags = GRES_DISABLE_BIND; j[3].cpu_freq_gov = CPU_FREQ_ONDEMAND;
  /* suspended: its run time is the time before the suspension */
  unset(&j[4]); j[4].job_id = 40; j[4].job_state = JOB_SUSPENDED; j[4].start_time = 1700000000;
  j[4].suspend_time = 1700000500; j[4].pre_sus_time = 500; j[4].time_limit = 0; j[4].cpu_freq_min = 2000000;
  j[4].mail_user = "nobody"; j[4].ntasks_per_socket = 3;
  /* cancelled, an end time and no start */
  unset(&j[5]); j[5].job_id = 50; j[5].job_state = JOB_CANCELLED; j[5].end_time = 1700000000; j[5].time_limit = 10;
  j[5].start_time = 1699990000; j[5].suspend_time = 1699995000; j[5].pre_sus_time = 20;
  const char *tags[] = {"unset", "array", "running", "het", "suspended", "cancelled"};
  for (int k = 0; k < 6; k++) show_job(tags[k], &j[k]);
  /* Slurm's sprint changed the record: the reason's blanks, the memory's flag */
  printf("after: reason [%s] mem %llu\n", j[3].state_desc, (unsigned long long)j[1].pn_min_memory);
  job_info_t zero; unset(&zero);
  char *z = slurm_sprint_job_info(&zero, 0); printf("job id 0: %s\n", z ? z : "(NULL)"); xf(z);
  job_info_msg_t m = { .last_update = 1700000000, .record_count = 3, .job_array = j };
  for (int one = 0; one < 2; one++) { fflush(stdout); slurm_print_job_info_msg(stdout, &m, one); fflush(stdout); }
  job_info_msg_t empty = { .last_update = 0, .record_count = 0, .job_array = NULL };
  fflush(stdout); slurm_print_job_info_msg(stdout, &empty, 0); fflush(stdout);
#endif
}

int main(void) {
  helpers();
  sprint_jobs();
  for (int i = 0; i < 205; i++) {
    char *t = slurm_job_reason_string(i);
    printf("reason %d %s %u\n", i, t, (unsigned)slurm_job_reason_num(t));
  }
  printf("reason -1 %s\n", slurm_job_reason_string((enum job_state_reason)-1));
  printf("num NULL %u, nope %u, low %u\n", (unsigned)slurm_job_reason_num(NULL), (unsigned)slurm_job_reason_num("nope"), (unsigned)slurm_job_reason_num("jobheldUSER"));
  for (int e = 0; e < 256; e += 7) { char b[64]; memset(b, 'x', 64); slurm_accounting_enforce_string(e, b, 64); printf("enforce %d %s\n", e, b); }
  { char b[64]; memset(b, 'x', 64); b[63]=0; slurm_accounting_enforce_string(3, b, 40); printf("enforce small [%s]\n", b); }
  reserve_info_t r; memset(&r, 0, sizeof r);
  for (int k = 0; k < 40; k++) { r.flags = 1ULL << k; r.purge_comp_time = (k == 20) ? 3700 : 0; char *s = slurm_reservation_flags_string(&r); printf("resv %d %s\n", k, s); xf(s); }
  r.flags = 0xffffffffffULL; { char *s = slurm_reservation_flags_string(&r); printf("resv all %s\n", s); xf(s); }
  uint32_t st[] = {0,1,2,3,4,5,6,7,9, 0x201, 0x803, 0x1000|0x80|1, 0x40000000|2, 0x7fffff0|1, 0xfffffff1};
  for (unsigned k = 0; k < sizeof st/sizeof *st; k++) { char *s = slurm_node_state_string_complete(st[k]); printf("node %#x %s\n", st[k], s); xf(s); }
  uint32_t d[] = {0,1,2,3,4,17,33,49,801,818, 2|SLURM_DIST_PACK_NODES, SLURM_DIST_UNKNOWN|SLURM_DIST_NO_PACK_NODES, 12345};
  for (unsigned k = 0; k < sizeof d/sizeof *d; k++) { char *s = slurm_step_layout_type_name(d[k]); printf("dist %u %s\n", d[k], s); xf(s); }
  for (int k = -1; k < 21; k++) { char b[256]; uint32_t t = k < 0 ? 0 : (1u << k); slurm_sprint_cpu_bind_type(b, t); printf("cpu %#x %s\n", t, b); }
  { char b[256]; slurm_sprint_cpu_bind_type(b, 0xfffff); printf("cpu all %s\n", b); }
  for (int k = -1; k < 9; k++) { uint32_t t = k < 0 ? 0 : (1u << k); char *s = slurm_xstr_mem_bind_type(t); printf("mem %#x %s\n", t, s ? s : "(NULL)"); xf(s); }
  const char *cases[] = {"Alice,bob,,node[1-3],carol,", "BOB", "'Quoted,Na\"me' ignored", "", "x[1,3],y", "a,A,a", "\"q\"", ",", "n[1-2]x,z", NULL};
  List l = slurm_list_create(slurm_xfree_ptr);
  for (int k = 0; cases[k]; k++) { char *c = strdup(cases[k]); int n = slurm_addto_char_list(l, c); pl(cases[k], l, n); free(c); }
  List l2 = slurm_list_create(slurm_xfree_ptr);
  { char c[] = "Mixed,MIXED,mixed"; int n = slurm_addto_char_list_with_case(l2, c, false); pl("case", l2, n); }
  { char *s = slurm_char_list_to_xstr(l); printf("joined %s\n", s); xf(s); }
  const char *sc[] = {"1.2,3,1.2,4_7.batch,5+1,6.0+2", "'7.extern'", "8.interactive,9_1,10.0", NULL};
  for (int k = 0; sc[k]; k++) {
    List s = slurm_list_create(slurm_destroy_selected_step); char *c = strdup(sc[k]);
    int n = slurm_addto_step_list(s, c);
    printf("steps %s n=%d:", sc[k], n);
    ListIterator it = slurm_list_iterator_create(s); slurm_selected_step_t *p;
    while ((p = slurm_list_next(it))) printf(" (%u %u %u %u %u)", p->step_id.job_id, p->step_id.step_id, p->step_id.step_het_comp, p->array_task_id, p->het_job_offset);
    printf("\n"); slurm_list_iterator_destroy(it); slurm_list_destroy(s); free(c);
  }
  const char *ts[] = {"1=4,2=1000,4=2", "1=4,2,3=5", "", "  2=7", NULL};
  for (int k = 0; ts[k]; k++) for (int id = 1; id < 5; id++) printf("tres %s %d %llu\n", ts[k], id, (unsigned long long)slurmdb_find_tres_count_in_string((char*)ts[k], id));
  time_t s0 = 1700000000, e0 = 1700000100; slurmdb_report_set_start_end_time(&s0, &e0); printf("period %ld %ld\n", (long)s0, (long)e0);
  time_t s1 = 1700001799, e1 = 1700091800; slurmdb_report_set_start_end_time(&s1, &e1); printf("period %ld %ld\n", (long)s1, (long)e1);
  time_t s2 = 0, e2 = 0; slurmdb_report_set_start_end_time(&s2, &e2); printf("period0 %ld\n", (long)(e2 - s2));
  return 0;
}
