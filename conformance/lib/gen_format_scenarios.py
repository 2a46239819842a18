#!/usr/bin/env python3
"""Writes scenarios/squeue_formats.scn and scenarios/sinfo_formats.scn (one step per
-o letter / -O field, from `squeue/sinfo --helpformat` and `--helpFormat` of 24.11.5).
Run it after changing the lists or the fixed parts, then re-record both scenarios."""
import os
SCN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scenarios")
sq_letters = "a F K B o k O I X E e x f G g i A W c m d j y N C D h P p Q q r R n v Y z H S T t V J L l M U u w Z".split()
sq_fields = """Account AccrueTime admin_comment AllocNodes AllocSID ArrayJobId ArrayTaskId AssocId BatchFlag BatchHost BoardsPerNode BurstBuffer BurstBufferState Cluster ClusterFeature Command Comment Container ContainerId Contiguous Cores CoreSpec CPUsPerTask cpus-per-task cpus-per-tres Deadline DelayBoot Dependency DerivedEC EligibleTime EndTime ExcNodes exit_code Feature GroupId GroupName HetJobId HetJobIdSet HetJobOffset JobArrayId JobId LastSchedEval Licenses MaxCPUs MaxNodes mem-per-tres MCSLabel MinCPUs MinMemory MinTime MinTmpDisk Name Network Nice NodeList NTPerCore NTPerNode NTPerSocket NTPerBoard NumCPUs NumNodes NumTasks Origin OriginRaw OverSubscribe Partition PendingTime PreemptTime Prefer Priority PriorityLong Profile QOS Reason ReasonList Reboot ReqNodes ReqSwitch Requeue Reservation ResizeTime RestartCnt SchedNodes SCT SiblingsActive SiblingsActiveRaw SiblingsViable SiblingsViableRaw Sockets SPerBoard StartTime State StateCompact StdErr StdIn StdOut SubmitTime system_comment Threads TimeLeft TimeLimit TimeUsed tres-alloc tres-bind tres-freq tres-per-job tres-per-socket tres-per-task UserId UserName Wait4Switch WCKey WorkDir""".split()
out = []
w = out.append
w("""# squeue_formats: every -o letter, every -O field, and the selection/sort options of squeue.
# Generated one step per letter/field (see the comments for what is left out and why).
# Fixed job set, all placed before any query (ids and placement deterministic):
#   1 alpha   root      RUNNING  node1   -t 10, --comment
#   2 beta    spurtest  RUNNING  -N2 -n2 --mem-per-cpu=300
#   3 gamma   root      PENDING  held (JobHeldUser), -t 5, --nice=10
#   4 delta   root      PENDING  Dependency on 1, -c 2, -t 1:00:00
#   5 eps     root      COMPLETED
#   6 zeta    root      FAILED   exit 2
#   7 arr     root      array 1-3, RUNNING (tasks 7_1=8, 7_2=9, 7_3=7)
#   10 eta    spurtest  CANCELLED (held, then cancelled)
# Every pending job is ineligible (held / dependency), so the backfill scheduler never
# gives it an expected start time or SchedNodes: %S, %Y, --start stay stable.
# Live values: %M/TimeUsed of running jobs sit under a TIME header (normalised, R4; never
# in a header-less table);
# %L/TimeLeft of running jobs tick down, so they are queried on pending jobs only;
# AllocSID (the submitter's session id) and PendingTime (seconds waited, timing) are not queried.
cluster nodes=4 cpus=2 memory=2000

run capture=J1 sbatch --parsable -J alpha -t 10 --comment=first -o alpha.out --wrap 'sleep 300'
wait_state $J1 RUNNING
run capture=J2 as=spurtest sbatch --parsable -J beta -N2 -n2 --mem-per-cpu=300 --wrap 'sleep 300'
wait_state $J2 RUNNING
run capture=J3 sbatch --parsable -J gamma --hold -t 5 --nice=10 --wrap 'sleep 300'
wait_state $J3 PENDING
run capture=J4 sbatch --parsable -J delta --dependency=afterok:$J1 -c 2 -t 1:00:00 --wrap 'sleep 300'
wait_state $J4 PENDING
run capture=J5 sbatch --parsable -J eps -o eps.out --wrap true
wait_done $J5
run capture=J6 sbatch --parsable -J zeta -o zeta.out --wrap 'exit 2'
wait_done $J6
run capture=J7 sbatch --parsable -J arr --array=1-3 -o arr-%A_%a.out --wrap 'sleep 300'
wait_state $J7 RUNNING
run capture=J8 as=spurtest sbatch --parsable -J eta --hold --wrap 'sleep 300'
wait_state $J8 PENDING
run as=spurtest scancel $J8
wait_done $J8
# the scheduler has given the pending jobs their reasons
wait_until test "$(squeue -h -j $J3,$J4 -o %r | sort | paste -sd,)" = Dependency,JobHeldUser

# ---- the default layouts and -l, -h, -r, --start --------------------------------
run squeue
run squeue -l
run squeue -h -t PD
run squeue -r
run squeue -l -r
run squeue --array
run squeue -t all
run squeue -t all -l
run squeue --start
run squeue --start -h
run squeue --start -j $J3
""")
w("# ---- every -o letter (all records, sorted by id; %L on pending jobs only) ----")
for L in sq_letters:
    if L == "M":
        # right-aligned under its header like the default layout, so R4 finds the column
        w("run squeue -t all --sort=i -o '%.18i %.10M'")
    elif L == "L":
        w("run squeue -t PD --sort=i -o '%i %L'")
    else:
        w(f"run squeue -t all --sort=i -o '%i %{L}'")
w("""
# ---- field widths and justification --------------------------------------------
run squeue -t all --sort=i -o '%.5i|%-10j|%10u|%.3t|%5P|%.20R|'
run squeue -t all --sort=i -o '%2i %3j %1T'
run squeue --sort=i -o '%i:%j:%T:%N' -h
run squeue --sort=i -o 'literal %i text %% %j'
run squeue --sort=i --format='%i %T %R'
run squeue --sort=i -o '%i %T' -r
run squeue --sort=i -o '%A %i %F %K %T' -r -t all
""")
w("# ---- every -O field (AllocSID left out: a session id; TimeLeft on pending jobs) ----")
for F in sq_fields:
    if F in ("AllocSID", "PendingTime"):
        continue
    if F == "TimeLeft":
        w("run squeue -t PD --sort=i -O JobID,TimeLeft")
    else:
        w(f"run squeue -t all --sort=i -O JobID,{F}")
w("""
# ---- -O widths, justification, and other forms ----------------------------------
run squeue -t all --sort=i -O JobID:6,Name:.8,State:12,UserName:.10
run squeue -t all --sort=i -O 'JobID:.10,Partition:3,Reason:40'
run squeue --sort=i --Format=JobID,State,ReasonList
run squeue -h --sort=i -O JobID,State
run squeue -t all --sort=i -O JobArrayId,ArrayJobId,ArrayTaskId,JobId
run squeue -t all -r --sort=i -O JobArrayId,ArrayJobId,ArrayTaskId,JobId

# ---- --states ------------------------------------------------------------------
run squeue -t PD --sort=i
run squeue -t R --sort=i
run squeue -t pending,running --sort=i
run squeue --states=PENDING --sort=i
run squeue --states=RUNNING,COMPLETED --sort=i
run squeue --states=CD --sort=i
run squeue --states=F --sort=i
run squeue --states=CA --sort=i
run squeue --states=all --sort=i
run squeue -t ALL --sort=i
run squeue -t completed,failed,cancelled --sort=i
run squeue -t r
run squeue -t CG
run squeue -t TO

# ---- --sort ----------------------------------------------------------------------
run squeue -t all --sort=i
run squeue -t all --sort=-i
run squeue -t all --sort=j,i
run squeue -t all --sort=-j,i
run squeue -t all --sort=u,i
run squeue -t all --sort=-u,-i
run squeue -t all --sort=t,i
run squeue -t all --sort=-t,i
run squeue -t all --sort=T,i
run squeue -t all --sort=D,i
run squeue -t all --sort=-D,i
run squeue -t all --sort=C,i
run squeue -t all --sort=l,i
run squeue -t all --sort=-l,i
run squeue -t all --sort=P,i
run squeue -t all --sort=p,i
run squeue -t all --sort=N,i
run squeue -t all --sort=-N,i
run squeue -t all --sort=m,i
run squeue -t all --sort=y,i
run squeue -t all --sort=-y,i
run squeue -t all --sort=r,i
run squeue -t all --sort=i -r
run squeue -t all --sort=-i -r

# ---- selection: -j -u -p -n -w --me -A -q ----------------------------------------
run squeue -j $J1
run squeue -j $J1,$J3
run squeue -j $J3 -j $J4 --sort=i
run squeue --jobs=$J2
run squeue -j $J5
run squeue -j $J5,$J1
run squeue -j $J7
run squeue -j ${J7}_2
run squeue -j ${J7}_2 -r
run squeue -j $J7 -r
run squeue -u root --sort=i
run squeue -u spurtest --sort=i
run squeue -u root,spurtest --sort=i
run squeue --user=1500 --sort=i
run squeue -u spurtest -t all --sort=i
run squeue -p debug --sort=i
run squeue --partition=debug -t PD --sort=i
run squeue -n alpha
run squeue -n alpha,gamma --sort=i
run squeue --name=arr
run squeue -n arr -r
run squeue -n nosuchname
run squeue -w node1 --sort=i
run squeue -w node2,node3 --sort=i
run squeue -w 'node[3-4]' --sort=i
run squeue --nodelist=node4
run squeue --me --sort=i
run as=spurtest squeue --me
run as=spurtest squeue --me -t all
run as=spurtest squeue --sort=i
run squeue -A nosuch
run squeue -q normal
run squeue -j $J1 -u spurtest
run squeue -j $J2 -u spurtest
run squeue -t PD -u spurtest

# ---- cleanup ---------------------------------------------------------------------
run scancel -u root
run scancel -u spurtest
wait_idle
run squeue
""")
open(os.path.join(SCN, "squeue_formats.scn"),"w").write("\n".join(out)+"\n")

si_letters = "S a V Y c O C L d f b e G g B m o A F n N D h P R M I p E i r s X z t T Z l H u U v w".split()
si_fields = """AllocMem AllocNodes Available Cluster Comment Cores CPUs CPUsLoad CPUsState DefaultTime Disk Extra Features features_act FreeMem Gres GresUsed Groups MaxCPUsPerNode Memory NodeAddr NodeAI NodeAIOT NodeHost NodeList Nodes OverSubscribe Partition PartitionName Port PreemptMode PriorityJobFactor PriorityTier Reason Reservation Root Size Sockets SocketCoreThread StateCompact StateComplete StateLong Threads Time TimeStamp User UserLong Version Weight""".split()
out=[]; w=out.append
w("""# sinfo_formats: every -o letter, every -O field, and sinfo's layouts and filters.
# Five nodes in every state sinfo distinguishes:
#   node1 mixed (1 of 2 CPUs), node2 allocated, node3 idle, node4 drained (Reason "maint window"),
#   node5 down (Reason "broken disk"); one partition, debug.  (A second partition needs a
#   `conf` line, which `spur cluster up` cannot take yet: no --extra-conf.)
# Live values left out: %O / CPUsLoad (load), %e / FreeMem (free memory), '%all' (has both), Port (the slurmd
# port the harness chose).  Reason times (%H, TimeStamp) are normalised (R2).
cluster nodes=5 cpus=2 memory=2000

run capture=J1 sbatch --parsable -w node1 -n1 --wrap 'sleep 300'
wait_state $J1 RUNNING
run capture=J2 sbatch --parsable -w node2 -n2 --wrap 'sleep 300'
wait_state $J2 RUNNING
run scontrol update NodeName=node4 State=DRAIN Reason='maint window'
run scontrol update NodeName=node5 State=DOWN Reason='broken disk'
wait_until sinfo -h -N -o '%N %t' | grep -Ecx 'node4 drain|node5 down' | grep -qx 2

# ---- layouts -------------------------------------------------------------------
run sinfo
run sinfo -N
run sinfo -l
run sinfo -N -l
run sinfo -s
run sinfo -s -N
run sinfo -R
run sinfo -R -l
run sinfo -R -N
run sinfo -h
run sinfo -h -s
run sinfo -e
run sinfo -e -N
run sinfo -a
run sinfo -r
run sinfo -d
run sinfo -T
run sinfo --noheader -N -l
""")
w("# ---- every -o letter, one line per node (-N) -------------------------------------")
for L in si_letters:
    if L in ("O","e"):
        continue
    w(f"run sinfo -N -o '%N %{L}'")
w("""
# ---- -o per partition (rows grouped by the fields shown) ---------------------------
run sinfo -o '%P %a %l %L %D %t %N'
run sinfo -o '%P %c %m %D'
run sinfo -o '%P %C'
run sinfo -o '%P %A %F'
run sinfo -o '%R %s %p %I %M %h %g %S'
run sinfo -o '%10P|%.5a|%-12N|%.4D|%20E|'
run sinfo -o '%P %T %E %u'
run sinfo -o '%P|%D|%F|%A|%C|%c|%z'
""")
w("# ---- every -O field, one line per node (-N) --------------------------------------")
for F in si_fields:
    if F in ("CPUsLoad","FreeMem","Port"):
        continue
    w(f"run sinfo -N -O NodeList,{F}")
w("""
# ---- -O per partition, widths ---------------------------------------------------
run sinfo -O Partition,Available,Time,Nodes,StateLong,NodeList
run sinfo -O PartitionName,CPUsState,NodeAIOT,DefaultTime,PriorityTier
run sinfo -O 'Partition:5,NodeList:.20,StateCompact:.8'
run sinfo -N -O 'NodeList:10,Reason:30,User:8,TimeStamp'

# ---- -t (states), -p, -n, sort --------------------------------------------------
run sinfo -t idle
run sinfo -t mix
run sinfo -t alloc
run sinfo -t drain
run sinfo -t down
run sinfo -t idle,mix
run sinfo -t drain,down -N
run sinfo --states=allocated -N
run sinfo -t bogus
run sinfo -p debug
run sinfo -p debug -N -l
run sinfo -p debug,nosuch
run sinfo -n node1
run sinfo -n 'node[3-5]'
run sinfo -n node2,node4 -N
run sinfo -n node9
run sinfo -p debug -n node1
run sinfo -N --sort=-N
run sinfo --sort=P
run sinfo --sort=-P
run sinfo -N -S t
run sinfo -N -o '%N %T' -S -T

# ---- drain -> resume changes what sinfo shows -------------------------------------
run scontrol update NodeName=node2 State=DRAIN Reason='drain while busy'
wait_until sinfo -h -N -o '%N %t' | grep -qx 'node2 drng'
run sinfo
run sinfo -R
run sinfo -N -o '%N %t %T %E'
run scontrol update NodeName=node2,node4 State=RESUME
run scontrol update NodeName=node5 State=RESUME
wait_until sinfo -h -N -o '%N %t' | grep -Ecx 'node2 alloc|node[345] idle' | grep -qx 4
run sinfo
run sinfo -R
run scancel $J1 $J2
wait_idle
run sinfo
run sinfo -N -l
""")
open(os.path.join(SCN, "sinfo_formats.scn"),"w").write("\n".join(out)+"\n")
