"""A PMI client as MPI libraries speak to srun --mpi=pmi2's server on PMI_FD:
`pmi_client.py 2` speaks PMI-2 (libpmi2's length-prefixed `cmd=...;`
messages, a `;` in a value written `;;`), `pmi_client.py 1` PMI-1 (MPICH's
simple PMI lines). Each rank puts a value, fences, reads its right-hand
neighbour's and prints it with the job's process mapping. Rank 0 publishes
a name before the fence and the last rank (on another node) looks it up
after it: the step's name service, which srun keeps."""
import os
import socket
import sys

version = sys.argv[1]
rank, size = int(os.environ["PMI_RANK"]), int(os.environ["PMI_SIZE"])
f = socket.socket(fileno=int(os.environ["PMI_FD"])).makefile("rwb", buffering=0)


def line():
    b = b""
    while not b.endswith(b"\n"):
        c = f.read(1)
        if not c:
            raise SystemExit("PMI server closed")
        b += c
    return b.decode()


def pmi2(pairs):
    p = "".join("%s=%s;" % (k, v.replace(";", ";;")) for k, v in pairs).encode()
    f.write(("%-6d" % len(p)).encode() + p)
    body = f.read(int(f.read(6).decode())).decode()
    out, key, cur, in_value, i = {}, "", "", False, 0
    while i < len(body):
        c = body[i]
        if c == "=" and not in_value:
            key, cur, in_value = cur, "", True
        elif c == ";" and in_value and body[i + 1:i + 2] == ";":
            cur += ";"
            i += 1
        elif c == ";":
            out[key] = cur
            cur, in_value = "", False
        else:
            cur += c
        i += 1
    return out


def pmi1(text):
    f.write(text.encode() + b"\n")
    return dict(w.split("=", 1) for w in line().split())


neighbour = (rank + 1) % size
if version == "2":
    f.write(b"cmd=init pmi_version=2 pmi_subversion=0\n")
    assert line() == "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n"
    r = pmi2([("cmd", "fullinit"), ("pmijobid", os.environ["PMI_JOBID"]), ("pmirank", str(rank))])
    assert (r["rank"], r["size"]) == (str(rank), str(size)), r
    pmi2([("cmd", "kvs-put"), ("key", "k%d" % rank), ("value", "v%d;with;semicolons" % rank)])
    if rank == 0:
        assert pmi2([("cmd", "name-publish"), ("name", "svc"), ("port", "port-of-0")])["rc"] == "0"
    assert pmi2([("cmd", "kvs-fence")])["rc"] == "0"
    if rank == size - 1:
        r = pmi2([("cmd", "name-lookup"), ("name", "svc")])
        assert (r["rc"], r.get("value")) == ("0", "port-of-0"), r
    got = pmi2([("cmd", "kvs-get"), ("jobid", os.environ["PMI_JOBID"]), ("srcid", "-1"), ("key", "k%d" % neighbour)])
    mapping = pmi2([("cmd", "info-getjobattr"), ("key", "PMI_process_mapping")])["value"]
    assert pmi2([("cmd", "finalize")])["rc"] == "0"
else:
    f.write(b"cmd=init pmi_version=1 pmi_subversion=1\n")
    assert line() == "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n"
    kvs = pmi1("cmd=get_my_kvsname")["kvsname"]
    pmi1("cmd=put kvsname=%s key=k%d value=v%d" % (kvs, rank, rank))
    if rank == 0:
        assert pmi1("cmd=publish_name service=svc1 port=p0")["info"] == "ok"
    assert pmi1("cmd=barrier_in")["rc"] == "0"
    if rank == size - 1:
        assert pmi1("cmd=lookup_name service=svc1") == {"cmd": "lookup_result", "info": "ok", "port": "p0"}
    got = pmi1("cmd=get kvsname=%s key=k%d" % (kvs, neighbour))
    mapping = kvs
    assert pmi1("cmd=finalize")["rc"] == "0"
print("rank %d of %d: k%d=%s on %s, %s" % (rank, size, neighbour, got.get("value"), os.environ["SLURMD_NODENAME"], mapping))
