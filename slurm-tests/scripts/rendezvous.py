#!/usr/bin/env python3
"""A torchrun-style rendezvous, as PyTorch Lightning's and submitit's Slurm
environments do it, without torch: every variable comes from Slurm's.

WORLD_SIZE from SLURM_NTASKS, RANK from SLURM_PROCID, LOCAL_RANK from
SLURM_LOCALID, NODE_RANK from SLURM_NODEID; MASTER_ADDR is the first host of
SLURM_JOB_NODELIST (expanded here, as Lightning does, brackets and all) and
MASTER_PORT is derived from SLURM_JOB_ID. Rank 0 listens there, every other
rank connects and sends what it found; rank 0 checks the ranks are 0..N-1
once each and sends back their sum, which each rank prints."""

import os
import re
import socket
import subprocess
import sys
import time


def first_host(nodelist):
    """The first name of a Slurm host list such as node[3-4,7],other."""
    m = re.match(r"([^,\[]+)(\[([^\]]+)\])?", nodelist)
    if not m:
        return nodelist
    prefix, ranges = m.group(1), m.group(3)
    if not ranges:
        return prefix
    first = ranges.split(",")[0].split("-")[0]
    return prefix + first


def address(host):
    """The host's address: its name where it resolves, else the NodeAddr
    Slurm has for it (every node here is on the loopback)."""
    try:
        return socket.gethostbyname(host)
    except OSError:
        out = subprocess.run(["scontrol", "show", "node", host], capture_output=True, text=True).stdout
        m = re.search(r"NodeAddr=(\S+)", out)
        return m.group(1) if m else host


def main():
    world = int(os.environ["SLURM_NTASKS"])
    rank = int(os.environ["SLURM_PROCID"])
    local = int(os.environ["SLURM_LOCALID"])
    node = int(os.environ["SLURM_NODEID"])
    master = first_host(os.environ["SLURM_JOB_NODELIST"])
    port = 15000 + int(os.environ["SLURM_JOB_ID"][-4:]) % 20000
    addr = address(master)
    if rank == 0:
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind((addr, port))
        srv.listen(world)
        peers, seen = [], {0: (local, node)}
        for _ in range(world - 1):
            conn, _ = srv.accept()
            r, l, n = map(int, conn.recv(64).decode().split())
            seen[r] = (l, n)
            peers.append(conn)
        if sorted(seen) != list(range(world)):
            print("bad ranks", sorted(seen))
            sys.exit(1)
        total = str(sum(seen)).encode()
        for conn in peers:
            conn.sendall(total)
            conn.close()
        result = total.decode()
    else:
        for _ in range(200):
            try:
                conn = socket.create_connection((addr, port))
                break
            except OSError:
                time.sleep(0.05)
        else:
            print("rank %d: no rendezvous at %s:%d" % (rank, addr, port))
            sys.exit(1)
        conn.sendall(("%d %d %d" % (rank, local, node)).encode())
        result = conn.recv(64).decode()
    print("rank %d/%d local %d node %d master %s sum %s" % (rank, world, local, node, master, result))


main()
