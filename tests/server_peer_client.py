"""Asks a cudal1 fork server for a worker as a judge would (three descriptors
and a JSON request on its unix socket) and says what came back: "worker PID"
and the worker's answer to quit, or "refused" when the server closed the
connection without a pid. Usage: server_peer_client.py SOCKET"""
import json
import os
import socket
import sys

sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(sys.argv[1])
cmd_r, cmd_w = os.pipe()
rep_r, rep_w = os.pipe()
log = os.open(os.devnull, os.O_WRONLY)
socket.send_fds(sock, [json.dumps({"env": {}}).encode()], [cmd_r, rep_w, log])
sock.shutdown(socket.SHUT_WR)
for fd in (cmd_r, rep_w, log):
    os.close(fd)
sock.settimeout(30)
line = b""
while not line.endswith(b"\n"):
    more = sock.recv(64)
    if not more:
        break
    line += more
if not line.strip():
    print("refused")
    sys.exit(0)
os.write(cmd_w, b'{"op": "quit", "id": 1}\n')
with os.fdopen(rep_r) as replies:
    hello = replies.readline().strip()
    bye = replies.readline().strip()
print(f"worker {line.decode().strip()}; hello {hello[:60]}; quit {bye}")
