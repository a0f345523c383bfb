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
#include "base/sha256.h"

extern char** environ;

namespace cudal1 {
namespace {

// Variables that torch or its libraries read when torch is imported: a
// server started under other values would not match this judgment.
bool affects_import(const std::string& name) {
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

int connect_to(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
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
    for (int fd = 3; fd < 1024; ++fd) close(fd);
    execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  return pid;
}

// Connects to the server, starting it if nobody answers.
result<int> connect_or_start(const reference_fork_request& req, const std::vector<std::string>& env,
                             const std::string& socket_path, const std::string& server_log, bool* ended) {
  int fd = connect_to(socket_path);
  if (fd >= 0) return fd;
  auto pid = start_server(req, env, socket_path, server_log);
  if (!pid) return pid.err();
  auto start = std::chrono::steady_clock::now();
  while (seconds_since(start) < req.start_timeout_s) {
    fd = connect_to(socket_path);
    if (fd >= 0) return fd;
    int wstatus = 0;
    if (waitpid(*pid, &wstatus, WNOHANG) == *pid) {
      // It ended: torch does not import there, or another server won the race.
      fd = connect_to(socket_path);
      if (fd >= 0) return fd;
      auto log = read_file(server_log);
      *ended = true;
      std::string last = log ? tail_lines(*log, 1) : "";
      return make_error("the reference server ended: " + (last.empty() ? "it printed nothing" : last));
    }
    usleep(20000);
  }
  kill(*pid, SIGKILL);
  return make_error(req.python + ": the reference server did not start within " +
                    std::to_string(static_cast<int>(req.start_timeout_s)) + " s");
}

status send_request(int sock, const std::string& payload, const int fds[3]) {
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
  if (sent <= 0) return make_error(std::string("cannot send to the reference server: ") + std::strerror(errno));
  for (size_t off = static_cast<size_t>(sent); off < payload.size();) {
    ssize_t n = send(sock, payload.data() + off, payload.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return make_error(std::string("cannot send to the reference server: ") + std::strerror(errno));
    off += static_cast<size_t>(n);
  }
  shutdown(sock, SHUT_WR);  // the end of the request
  return ok_status();
}

result<pid_t> read_pid(int sock, double timeout_s) {
  std::string text;
  char buf[64];
  auto start = std::chrono::steady_clock::now();
  while (text.find('\n') == std::string::npos) {
    pollfd p{sock, POLLIN, 0};
    int left_ms = static_cast<int>((timeout_s - seconds_since(start)) * 1000);
    if (left_ms <= 0 || poll(&p, 1, left_ms) <= 0) return make_error("the reference server did not answer");
    ssize_t n = read(sock, buf, sizeof buf);
    if (n <= 0) return make_error("the reference server closed the connection");
    text.append(buf, static_cast<size_t>(n));
  }
  long pid = std::strtol(text.c_str(), nullptr, 10);
  if (pid <= 0) return make_error("the reference server sent no pid");
  return static_cast<pid_t>(pid);
}

}  // namespace

bool reference_server_enabled() { return env_or("CUDAL1_REF_SERVER", "1") != "0"; }

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
  std::vector<std::string> env = merged_environment(req.env);
  sha256 h;
  h.update(req.python + '\0');
  // The server imports the worker script and the modules beside it once:
  // a change to any of them needs a server of its own.
  for (const char* name : {"cudal1_ref.py", "cudal1_compare.py"}) {
    std::string path = std::filesystem::path(req.script).parent_path() / name;
    auto text = read_file(path);
    if (!text) return text.err();
    h.update(*text);
  }
  std::vector<std::string> keyed;
  for (const auto& kv : env)
    if (affects_import(kv.substr(0, kv.find('=')))) keyed.push_back(kv);
  std::sort(keyed.begin(), keyed.end());
  for (const auto& kv : keyed) h.update(kv + '\0');
  std::string key = h.hex_digest().substr(0, 16);
  std::string socket_path = *folder + "/ref-" + key + ".sock";

  bool ended = false;
  auto sock = connect_or_start(req, env, socket_path, *folder + "/ref-" + key + ".log", &ended);
  if (!sock) {
    if (ended) {
      *python_unusable = true;
      (void)write_file_atomic(marker, sock.message());
    }
    return sock.err();
  }
  int cmd_pipe[2], reply_pipe[2];
  if (pipe2(cmd_pipe, O_CLOEXEC) != 0 || pipe2(reply_pipe, O_CLOEXEC) != 0) {
    close(*sock);
    return make_error(std::string("pipe: ") + std::strerror(errno));
  }
  int log_fd = open(req.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  nlohmann::json env_json = nlohmann::json::object();
  for (const auto& kv : env) {
    auto eq = kv.find('=');
    if (eq != std::string::npos) env_json[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  int fds[3] = {cmd_pipe[0], reply_pipe[1], log_fd};
  status sent = log_fd >= 0 ? send_request(*sock, nlohmann::json{{"env", env_json}}.dump(), fds)
                            : status(make_error("cannot open " + req.log_path));
  result<pid_t> pid = sent ? read_pid(*sock, 30) : result<pid_t>(sent.err());
  close(*sock);
  close(cmd_pipe[0]);
  close(reply_pipe[1]);
  if (log_fd >= 0) close(log_fd);
  if (!pid) {
    close(cmd_pipe[1]);
    close(reply_pipe[0]);
    return pid.err();
  }
  return child_process::adopt(*pid, cmd_pipe[1], reply_pipe[0]);
}

}  // namespace cudal1
