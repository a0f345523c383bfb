#include "worker/ref_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_text.h"
#include "base/sha256.h"

extern char** environ;

namespace cudal1 {
namespace {

// Variables that torch or its libraries read when torch is imported: a
// server started under other values would not match this judgment.
bool affects_import(const std::string& name) {
  // PATH too: torch.utils.cpp_extension takes CUDA_HOME from the nvcc on it
  // at import when CUDA_HOME is unset (an attack review).
  if (name == "PATH") return true;
  for (const char* prefix : {"CUDA_", "OMP_", "MKL_", "TORCH", "PYTORCH", "LD_", "PYTHON", "NVIDIA_", "KMP_", "GOMP_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

std::vector<std::string> merged_environment(const std::vector<std::string>& add) {
  std::vector<std::string> env;
  auto name_of = [](const std::string& kv) { return kv.substr(0, kv.find('=')); };
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    bool replaced = false;
    for (const auto& a : add) replaced |= name_of(a) == name_of(kv);
    if (!replaced) env.push_back(kv);
  }
  env.insert(env.end(), add.begin(), add.end());
  return env;
}

result<std::string> socket_folder() {
  std::string runtime = env_or("XDG_RUNTIME_DIR", "");
  std::string dir = runtime.empty() ? "/tmp/cudal1-" + std::to_string(getuid()) : runtime + "/cudal1";
  if (auto s = make_dirs(dir); !s) return s.err();
  chmod(dir.c_str(), 0700);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || st.st_uid != getuid() || (st.st_mode & 077) != 0)
    return make_error(dir + " is not a private folder of this user");
  return dir;
}

// The files beside a server's socket (python/cudal1_ref.py serve() names
// them the same): its pid file, written once it listens and removed when it
// exits, and the lock that binding a server and replacing one both take.
struct server_files {
  std::string socket, pid, lock, log;
};

server_files files_for(const std::string& folder, const std::string& role, const std::string& key) {
  std::string base = folder + "/" + role + "-" + key;
  return {base + ".sock", base + ".pid", base + ".lock", base + ".log"};
}

// A connected socket, or -errno. The connect does not block: a server that
// is stopped with its listen queue full would otherwise hold us forever
// (EAGAIN then says so).
int connect_to(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -errno;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int err = errno;
    close(fd);
    return -err;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  timeval send_limit{5, 0};  // a request is small; a server that takes none is not healthy
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_limit, sizeof send_limit);
  return fd;
}

// The same path, or another spelling of it (a judge whose XDG_RUNTIME_DIR
// is spelled otherwise, through a symbolic link, must not take the server
// for another process).
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return a == b || (stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

// What the pid file says of the server behind a socket.
struct server_health {
  enum class state { absent, healthy, unhealthy } what = state::absent;
  pid_t pid = -1;     // from the pid file; -1 when there is none
  bool ours = false;  // the pid is a live `cudal1_ref.py --serve SOCKET`: safe to kill
  std::string why;    // for unhealthy
};

// A server is healthy when its pid file names a live process that is not
// stopped (a SIGSTOPped server still completes connects through its listen
// queue, so only its state tells) and whose command line is `--serve` on
// this socket, so a pid reused by another process is never taken for it.
server_health check_server(const server_files& files) {
  server_health h;
  auto text = read_file(files.pid);
  if (!text) return h;
  h.what = server_health::state::unhealthy;
  long pid = std::strtol(text->c_str(), nullptr, 10);
  if (pid <= 0) {
    h.why = "its pid file is unreadable";
    return h;
  }
  h.pid = static_cast<pid_t>(pid);
  auto stat_text = read_file("/proc/" + std::to_string(pid) + "/stat");
  auto cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline");
  size_t paren = stat_text ? stat_text->rfind(')') : std::string::npos;
  if (!cmdline || paren == std::string::npos || paren + 2 >= stat_text->size()) {
    h.why = "it is not running";
    return h;
  }
  std::vector<std::string> args;
  for (size_t at = 0; at < cmdline->size();) {
    size_t end = std::min(cmdline->find('\0', at), cmdline->size());
    args.push_back(cmdline->substr(at, end - at));
    at = end + 1;
  }
  char state = (*stat_text)[paren + 2];
  if (state == 'Z' || state == 'X') {
    h.why = "it has exited";
    return h;
  }
  auto serve = std::find(args.begin(), args.end(), "--serve");
  h.ours = serve != args.end() && serve + 1 != args.end() && same_file(serve[1], files.socket);
  if (!h.ours) {
    h.why = "its pid names another process";
  } else if (state == 'T' || state == 't') {
    h.why = "it is stopped";
  } else {
    h.what = server_health::state::healthy;
  }
  return h;
}

// Replaces the server that `seen` describes: kills it (only when it is a
// server of this socket) and removes its socket and pid file, so the next
// connect starts a fresh one. Under the lock, and only while the pid file
// still names the same pid: when two judges replace the same server, the
// second leaves alone the fresh server the first one's judgment started.
void replace_server(const server_files& files, const server_health& seen) {
  file_lock lock(files.lock);  // 2 s at most: a server stopped while binding holds it
  server_health now = check_server(files);
  if (now.pid != seen.pid) return;
  if (now.pid > 0 && now.ours) {
    kill(now.pid, SIGKILL);
    // Reap it where this process started it (elsewhere waitpid says ECHILD).
    for (int i = 0; i < 40 && waitpid(now.pid, nullptr, WNOHANG) == 0; ++i) usleep(5000);
  }
  unlink(files.pid.c_str());
  unlink(files.socket.c_str());
}

// Starts a detached server (own session, so it outlives this judgment).
result<pid_t> start_server(const reference_fork_request& req, const std::vector<std::string>& env,
                           const std::string& socket_path, const std::string& log_path) {
  std::string idle_s = env_or("CUDAL1_REF_SERVER_IDLE", "600");
  std::vector<std::string> argv = {req.python, "-u", req.script, "--serve", socket_path, idle_s};
  std::vector<char*> cargv, cenv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::vector<std::string> env_copy = env;
  for (auto& e : env_copy) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    setsid();
    int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    if (log >= 0) {
      dup2(log, 1);
      dup2(log, 2);
    }
    close_range(3, ~0U, 0);  // every descriptor, whatever its number: the server hands memory to every worker it forks
    execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  return pid;
}

// What a server is called in messages.
std::string server_name(const reference_fork_request& req) {
  return req.role == "ref" ? "the reference server" : "the " + std::string(req.role == "cand" ? "candidate" : req.role) + " server";
}

// Why a server we started cannot serve.
enum class start_failure { none, ended, too_slow };

// Connects to the server, starting it if nobody listens there.
result<int> connect_or_start(const reference_fork_request& req, const std::vector<std::string>& env,
                             const server_files& files, start_failure* failed) {
  int fd = connect_to(files.socket);
  if (fd >= 0) return fd;
  if (fd == -EAGAIN) return make_error(server_name(req) + "'s queue is full");
  auto pid = start_server(req, env, files.socket, files.log);
  if (!pid) return pid.err();
  auto start = std::chrono::steady_clock::now();
  while (seconds_since(start) < req.start_timeout_s) {
    fd = connect_to(files.socket);
    if (fd >= 0) return fd;
    int wstatus = 0;
    if (waitpid(*pid, &wstatus, WNOHANG) == *pid) {
      // It ended: torch does not import there, or another server won the race.
      fd = connect_to(files.socket);
      if (fd >= 0) return fd;
      auto log = read_file(files.log);
      *failed = start_failure::ended;
      std::string last = log ? tail_lines(*log, 1) : "";
      return make_error(server_name(req) + " ended: " + (last.empty() ? "it printed nothing" : last));
    }
    usleep(20000);
  }
  kill(*pid, SIGKILL);
  *failed = start_failure::too_slow;
  return make_error(req.python + ": " + server_name(req) + " did not start within " +
                    std::to_string(static_cast<int>(req.start_timeout_s)) + " s");
}

status send_request(int sock, const std::string& payload, const int fds[3], const std::string& name) {
  iovec iov{const_cast<char*>(payload.data()), payload.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(3 * sizeof(int));
  std::memcpy(CMSG_DATA(cmsg), fds, 3 * sizeof(int));
  ssize_t sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
  if (sent <= 0) return make_error("cannot send to " + name + ": " + std::strerror(errno));
  for (size_t off = static_cast<size_t>(sent); off < payload.size();) {
    ssize_t n = send(sock, payload.data() + off, payload.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return make_error("cannot send to " + name + ": " + std::strerror(errno));
    off += static_cast<size_t>(n);
  }
  shutdown(sock, SHUT_WR);  // the end of the request
  return ok_status();
}

// A healthy server forks a worker in tens of milliseconds: one that has not
// answered in this bound is replaced, not waited on.
constexpr double kAnswerBoundS = 5;
constexpr int kHealthCheckMs = 100;

// The worker's pid from the server, checking the server's health every
// 100 ms while waiting; an unhealthy server ends the wait at once.
result<pid_t> await_pid(int sock, const server_files& files, const std::string& name) {
  std::string text;
  char buf[64];
  auto start = std::chrono::steady_clock::now();
  while (text.find('\n') == std::string::npos) {
    server_health h = check_server(files);
    if (h.what == server_health::state::unhealthy)
      return make_error(name + " (pid " + std::to_string(h.pid) + ") is unhealthy: " + h.why);
    int left_ms = static_cast<int>((kAnswerBoundS - seconds_since(start)) * 1000);
    if (left_ms <= 0)
      return make_error(name + " did not answer within " + std::to_string(int(kAnswerBoundS)) + " s");
    pollfd p{sock, POLLIN, 0};
    int ready = poll(&p, 1, std::min(left_ms, kHealthCheckMs));
    if (ready < 0 && errno != EINTR) return make_error(std::string("poll: ") + std::strerror(errno));
    if (ready <= 0) continue;
    // One byte at a time: what follows the pid's line (the candidate
    // server's exit status) is read later, by the worker's owner.
    ssize_t n = read(sock, buf, 1);
    if (n <= 0) return make_error(name + " closed the connection");
    text.append(buf, static_cast<size_t>(n));
  }
  long pid = std::strtol(text.c_str(), nullptr, 10);
  if (pid <= 0) return make_error(name + " sent no pid");
  return static_cast<pid_t>(pid);
}

// One request to a connected server (the socket is closed here): the
// worker's pipes and log travel with it; the answer is the worker's pid.
result<child_process> request_worker(int sock, const reference_fork_request& req, const std::vector<std::string>& env,
                                     const server_files& files) {
  int cmd_pipe[2], reply_pipe[2];
  if (pipe2(cmd_pipe, O_CLOEXEC) != 0) {
    close(sock);
    return make_error(std::string("pipe: ") + std::strerror(errno));
  }
  if (pipe2(reply_pipe, O_CLOEXEC) != 0) {
    close(sock);
    close(cmd_pipe[0]);
    close(cmd_pipe[1]);
    return make_error(std::string("pipe: ") + std::strerror(errno));
  }
  int log_fd = open(req.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  nlohmann::json request = req.payload.is_object() ? req.payload : nlohmann::json::object();
  nlohmann::json env_json = nlohmann::json::object();
  for (const auto& kv : env) {
    auto eq = kv.find('=');
    if (eq != std::string::npos) env_json[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  int fds[3] = {cmd_pipe[0], reply_pipe[1], log_fd};
  request["env"] = env_json;
  const std::string name = server_name(req);
  status sent = log_fd >= 0 ? send_request(sock, json_text(request), fds, name)
                            : status(make_error("cannot open " + req.log_path));
  result<pid_t> pid = sent ? await_pid(sock, files, name) : result<pid_t>(sent.err());
  // The candidate server's keeper writes how the worker ended on this
  // connection: the worker's owner reads it there.
  int status_fd = -1;
  if (pid && req.exit_status) status_fd = sock;
  else close(sock);
  close(cmd_pipe[0]);
  close(reply_pipe[1]);
  if (log_fd >= 0) close(log_fd);
  if (!pid) {
    // A server that answers later forks a worker that reads EOF at once.
    close(cmd_pipe[1]);
    close(reply_pipe[0]);
    return pid.err();
  }
  return child_process::adopt(*pid, cmd_pipe[1], reply_pipe[0], status_fd);
}

}  // namespace

reference_fork_request candidate_fork_request(const worker_spawn& spawn) {
  reference_fork_request req;
  req.role = "cand";
  req.python = spawn.argv[0];
  req.script = spawn.argv[2];
  // cudal1_nvcc.py too: the server's builds run the driver beside its own
  // script, so a judge of another install gets a server of its own.
  req.key_files = {"cudal1_forkserver.py", "cudal1_clock.py", "cudal1_nvcc.py"};
  req.log_path = spawn.log_path;
  req.clean_env = true;
  req.env = spawn.env;
  req.exit_status = true;
  const process_limits& l = spawn.limits;
  req.payload = {{"args", std::vector<std::string>(spawn.argv.begin() + 3, spawn.argv.end())},
                 {"cwd", spawn.working_dir},
                 {"isolate", spawn.isolate},
                 {"limits", {{"cpu_seconds", l.cpu_seconds}, {"address_bytes", l.address_bytes},
                             {"open_files", l.open_files}, {"processes", l.processes}, {"file_bytes", l.file_bytes}}}};
  return req;
}

// Only for a root judge: its sealed workers run as another user, which cannot
// enter the servers' private folder. Landlock does not cover connecting to a
// named unix socket, so a judge that is not root (its workers keep its user)
// would leave a sealed candidate a way to ask a server for an unsealed
// process; the servers' own peer check (cudal1_forkserver.sealed_peer) rests
// there on no_new_privs alone, which a judge under a no-new-privileges
// container shares (an attack review, 2026-12-05). Such a judge starts its
// workers afresh.
bool reference_server_enabled() { return env_or("CUDAL1_REF_SERVER", "1") != "0" && geteuid() == 0; }

result<child_process> fork_reference(const reference_fork_request& req, bool* python_unusable) {
  *python_unusable = false;
  auto folder = socket_folder();
  if (!folder) return folder.err();
  std::string marker = *folder + "/no-torch-" + sha256_hex(req.python).substr(0, 16);
  struct stat st;
  if (req.use_remembered && stat(marker.c_str(), &st) == 0 && time(nullptr) - st.st_mtime < 600) {
    *python_unusable = true;
    auto why = read_file(marker);
    return make_error((why ? *why : "no torch") + " (remembered for 10 minutes)");
  }
  std::vector<std::string> env = req.clean_env ? clean_environment(req.env) : merged_environment(req.env);
  sha256 h;
  h.update(req.role + '\0' + req.python + '\0');
  // The server imports the worker script and the modules beside it once:
  // a change to any of them needs a server of its own.
  std::vector<std::string> scripts = {req.script};
  for (const auto& name : req.key_files) scripts.push_back(std::filesystem::path(req.script).parent_path() / name);
  for (const auto& path : scripts) {
    auto text = read_file(path);
    if (!text) return text.err();
    h.update(*text);
  }
  std::vector<std::string> keyed;
  for (const auto& kv : env)
    if (affects_import(kv.substr(0, kv.find('=')))) keyed.push_back(kv);
  std::sort(keyed.begin(), keyed.end());
  for (const auto& kv : keyed) h.update(kv + '\0');
  server_files files = files_for(*folder, req.role, h.hex_digest().substr(0, 16));

  // An unhealthy server (stopped, dead, its pid reused) is replaced at once;
  // one that does not answer in kAnswerBoundS is replaced once per judgment;
  // then the caller falls back to a worker of its own.
  std::string failures;
  for (int attempt = 0; attempt < 2; ++attempt) {
    server_health seen = check_server(files);
    if (seen.what == server_health::state::unhealthy) replace_server(files, seen);
    start_failure failed = start_failure::none;
    auto sock = connect_or_start(req, env, files, &failed);
    if (failed == start_failure::ended) {
      *python_unusable = true;
      (void)write_file_atomic(marker, sock.message());
      return sock.err();
    }
    server_health serving = check_server(files);  // the server this attempt asks
    std::string why = sock ? "" : sock.message();
    if (sock) {
      auto child = request_worker(*sock, req, env, files);
      if (child) return child;
      why = child.message();
    }
    failures += (failures.empty() ? "" : "; then ") + why;
    if (failed == start_failure::too_slow) break;  // a fresh one would fare no better
    if (attempt == 0) replace_server(files, serving);
  }
  return make_error(failures);
}

}  // namespace cudal1
