"""What cudal1's two fork servers share: a long-lived Python that imported
torch once and forks a fresh worker per request, so a judgment does not pay
torch's import (seconds) for its reference (cudal1_ref.py --serve) or its
ModelNew candidate (cudal1_candidate.py --serve).

The judge's side is src/worker/ref_server.cc: it names the files beside the
socket the same (KEY.sock, KEY.pid, KEY.lock, KEY.log), checks the server's
health by its pid file and command line, and replaces one that is stopped,
dead or slow.

A request is one message on the unix socket carrying three descriptors
(the worker's commands, its replies, its log) and a JSON object; the server
answers on the same connection (a line with the worker's pid, and for a
candidate a second line later, how it ended).
"""
import fcntl
import json
import os
import signal
import socket
import sys


def server_sibling(socket_path, suffix):
    """The file beside the server's socket with another suffix: KEY.pid,
    KEY.lock (the judge's src/worker/ref_server.cc names them the same)."""
    base = socket_path[:-len(".sock")] if socket_path.endswith(".sock") else socket_path
    return base + suffix


def bind_server_socket(socket_path, pid_path):
    """Binds and listens on socket_path and writes our pid to pid_path, under
    the lock the judge also takes to replace a server, so a judge never sees a
    socket that is bound but not yet listening or has no pid file. Returns
    None when another server answers there already."""
    lock = os.open(server_sibling(socket_path, ".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.bind(socket_path)
        except OSError:
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            probe.settimeout(1)  # a full listen queue (a stopped server's) fails, never blocks
            try:
                probe.connect(socket_path)
                server.close()
                return None  # another server answers there already
            except OSError:
                os.unlink(socket_path)  # a stale socket of a server that died
                server.bind(socket_path)
            finally:
                probe.close()
        os.chmod(socket_path, 0o600)
        server.listen(64)
        tmp = f"{pid_path}.{os.getpid()}.tmp"
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write(f"{os.getpid()}\n")
        os.replace(tmp, pid_path)  # atomic: a reader sees no pid file or a whole one
        return server
    finally:
        os.close(lock)


def remove_if_ours(socket_path, socket_ino, pid_path):
    """Removes our socket and pid file, not those of a server that replaced us."""
    try:
        if os.stat(socket_path).st_ino == socket_ino:
            os.unlink(socket_path)
        ours = False
        with open(pid_path) as f:
            ours = f.read().strip() == str(os.getpid())
        if ours:
            os.unlink(pid_path)
    except OSError:
        pass


def receive_request(conn):
    """The request's three descriptors and its JSON object, and the pid of the
    process that sent it (the kernel's word, SO_PEERCRED)."""
    import struct
    conn.settimeout(10)
    msg, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise ValueError("a request carries three descriptors")
    while True:  # the client shuts its side down after the request
        more = conn.recv(1 << 20)
        if not more:
            break
        msg += more
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    peer_pid = struct.unpack("3i", creds)[0]
    why = sealed_peer(peer_pid)
    if why:
        for fd in fds:
            os.close(fd)
        raise ValueError(f"refused a request from pid {peer_pid}, which runs under more restriction than this server "
                         f"({why}): a sealed worker's, not a judge's")
    return json.loads(msg), fds, peer_pid


def proc_status(pid):
    """/proc/PID/status as a dict of its fields."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def sealed_peer(pid):
    """Why the process behind a connection is a sealed worker (or a process
    it started), or None for one that runs as this server does, as a judge
    does. Landlock does not cover connecting to a named unix socket, so
    where the sandbox cannot change the user (a judge that is not root), a
    sealed candidate could reach this socket and ask for an unsealed process
    (an attack review). A sealed process has its own PID namespace where
    the machine gives one, and always no_new_privs and seccomp filters this
    server has not."""
    try:
        if os.stat(f"/proc/{pid}/ns/pid").st_ino != os.stat("/proc/self/ns/pid").st_ino:
            return "another PID namespace"
        me, peer = proc_status("self"), proc_status(pid)
        if int(peer.get("NoNewPrivs", "0")) > int(me.get("NoNewPrivs", "0")):
            return "no_new_privs set"
        if int(peer.get("Seccomp_filters", "0")) > int(me.get("Seccomp_filters", "0")):
            return "more seccomp filters"
    except (OSError, ValueError) as e:
        return f"its /proc entry cannot be read: {e}"
    return None


def serve(socket_path, idle_s, name, fork_one):
    """The server's loop: binds socket_path, then for each request calls
    fork_one(request, fds, conn, peer_pid, server) in a forked child (which
    must never return) and goes on; exits after idle_s without a request (or
    on SIGTERM), removing its socket and pid file. Children are reaped by the
    kernel."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    pid_path = server_sibling(socket_path, ".pid")
    server = bind_server_socket(socket_path, pid_path)
    if server is None:
        return 0
    server_pid = os.getpid()
    socket_ino = os.stat(socket_path).st_ino
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server.settimeout(idle_s)
    print(f"{name}, listening on {socket_path}", flush=True)
    try:
        while True:
            try:
                conn, _ = server.accept()
            except socket.timeout:
                break
            try:
                request, fds, peer_pid = receive_request(conn)
            except Exception as e:
                print(f"bad request: {e}", flush=True)
                conn.close()
                continue
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    server.close()
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                    code = fork_one(request, fds, conn, peer_pid)
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code if isinstance(code, int) else 1)
            for fd in fds:
                os.close(fd)
            conn.close()
    finally:
        if os.getpid() == server_pid:  # never in a forked worker that failed early
            remove_if_ours(socket_path, socket_ino, pid_path)
    return 0


def become_worker(fds, env):
    """In a forked worker: its descriptors as the judge's spawn sets them
    (stdin /dev/null, stdout and stderr the log, 3 commands, 4 replies,
    nothing else) and exactly the environment it was sent."""
    cmd, reply, log = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in fds)
    devnull = os.open("/dev/null", os.O_RDONLY)
    for target, fd in ((0, devnull), (1, log), (2, log), (3, cmd), (4, reply)):
        os.dup2(fd, target)  # dup2 makes the target inheritable: it is the worker's own
    close_all_but(5)
    os.environ.clear()
    os.environ.update(env)


def close_all_but(first):
    """Closes every descriptor from `first` on, whatever its number: listed,
    not bounded by a limit (a descriptor the server inherited above 1024,
    or above a lowered RLIMIT_NOFILE, reached the worker otherwise: attack
    review, 2026-12-03), and checks none is left."""
    for _ in range(3):
        left = [int(n) for n in os.listdir("/proc/self/fd") if int(n) >= first]
        for fd in left:
            try:
                os.close(fd)
            except OSError:
                pass  # the listing's own descriptor, closed already
        if not [n for n in os.listdir("/proc/self/fd") if int(n) >= first and int(n) not in left]:
            return
    raise RuntimeError("descriptors above the worker's own stayed open")


def adopt_context(judge_pid):
    """Takes on the judge's scheduling context, as a worker the judge starts
    itself inherits it: CPU affinity, nice value, OOM score, resource
    limits, cgroup. The server's own came from whichever judge started it
    (attack review: a server started under nice 15 and one CPU gave every
    later worker both). Best effort: what cannot be copied stays."""
    import resource
    try:
        os.sched_setaffinity(0, os.sched_getaffinity(judge_pid))
    except OSError:
        pass
    try:
        os.setpriority(os.PRIO_PROCESS, 0, os.getpriority(os.PRIO_PROCESS, judge_pid))
    except OSError:
        pass
    try:
        with open(f"/proc/{judge_pid}/oom_score_adj") as f:
            score = f.read().strip()
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write(score)
    except OSError:
        pass
    for name in dir(resource):
        if name.startswith("RLIMIT_") and name != "RLIMIT_NLIMITS":
            which = getattr(resource, name)
            try:
                soft, hard = resource.prlimit(judge_pid, which)
            except (OSError, ValueError):
                continue
            try:
                resource.setrlimit(which, (soft, hard))
            except (OSError, ValueError):  # a hard limit above ours cannot be raised: the soft one at least
                _, own_hard = resource.getrlimit(which)
                inf = resource.RLIM_INFINITY
                fits = own_hard == inf or (soft != inf and soft <= own_hard)
                try:
                    resource.setrlimit(which, (soft if fits else own_hard, own_hard))
                except (OSError, ValueError):
                    pass
    try:  # cgroup v2: one line "0::/path"
        with open(f"/proc/{judge_pid}/cgroup") as f:
            lines = f.read().splitlines()
        path = next((l[3:] for l in lines if l.startswith("0::")), None)
        if path is not None:
            with open(os.path.join("/sys/fs/cgroup", path.lstrip("/"), "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
    except OSError:
        pass
