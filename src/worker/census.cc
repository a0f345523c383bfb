#include "worker/census.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

namespace cudal1 {

std::optional<std::string> read_proc_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got > 0) {
      text.append(buf, static_cast<size_t>(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    ::close(fd);
    if (got < 0) return std::nullopt;
    return text;
  }
}

namespace {

// A thread's stat line after its name: "S ppid pgrp ...", or empty.
std::string stat_fields(const std::string& tid, const std::string& proc) {
  const std::optional<std::string> text = read_proc_file(proc + "/task/" + tid + "/stat");
  if (!text) return "";
  const size_t close = text->rfind(')');
  return close == std::string::npos || close + 2 >= text->size() ? "" : text->substr(close + 2);
}

}  // namespace

std::set<std::string> list_threads(const std::string& proc) {
  std::set<std::string> tids;
  if (DIR* d = opendir((proc + "/task").c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') tids.insert(e->d_name);
    closedir(d);
  }
  return tids;
}

char thread_state(const std::string& tid, const std::string& proc) {
  std::string fields = stat_fields(tid, proc);
  return fields.empty() ? '?' : fields[0];
}

bool thread_running(const std::string& tid, const std::string& proc) {
  std::string text = stat_fields(tid, proc);
  if (text.empty()) return false;
  std::istringstream fields(text);
  std::string state, skip;
  unsigned long long flags = 0;
  fields >> state;
  for (int i = 0; i < 5; ++i) fields >> skip;  // ppid pgrp session tty_nr tpgid, then flags
  fields >> flags;
  constexpr unsigned long long kExiting = 0x4;  // PF_EXITING
  return state != "Z" && state != "X" && !(flags & kExiting);
}

std::string thread_name(const std::string& tid, const std::string& proc) {
  std::string name = read_proc_file(proc + "/task/" + tid + "/comm").value_or("");
  if (size_t end = name.find('\n'); end != std::string::npos) name.resize(end);
  return name;
}

std::vector<std::string> new_threads(const std::set<std::string>& baseline, const std::string& proc) {
  std::vector<std::string> out;
  for (const auto& tid : list_threads(proc)) {
    if (baseline.count(tid) || !thread_running(tid, proc)) continue;
    std::string name = thread_name(tid, proc);
    out.push_back(name.empty() ? tid : name + " (" + tid + ")");
  }
  return out;
}

std::vector<std::string> child_processes(const std::string& proc) {
  std::vector<std::string> pids;
  for (const auto& tid : list_threads(proc)) {
    std::istringstream in(read_proc_file(proc + "/task/" + tid + "/children").value_or(""));
    for (std::string pid; in >> pid;) pids.push_back(pid);
  }
  return pids;
}

}  // namespace cudal1
