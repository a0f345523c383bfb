#include "worker/census.h"

#include <dirent.h>

#include <fstream>
#include <iterator>
#include <sstream>

namespace cudal1 {

std::set<std::string> list_threads() {
  std::set<std::string> tids;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') tids.insert(e->d_name);
    closedir(d);
  }
  return tids;
}

bool thread_running(const std::string& tid) {
  std::ifstream in("/proc/self/task/" + tid + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(text.substr(close + 2));
  std::string state, skip;
  unsigned long long flags = 0;
  fields >> state;
  for (int i = 0; i < 5; ++i) fields >> skip;  // ppid pgrp session tty_nr tpgid, then flags
  fields >> flags;
  constexpr unsigned long long kExiting = 0x4;  // PF_EXITING
  return state != "Z" && state != "X" && !(flags & kExiting);
}

std::string thread_name(const std::string& tid) {
  std::ifstream in("/proc/self/task/" + tid + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

std::vector<std::string> new_threads(const std::set<std::string>& baseline) {
  std::vector<std::string> out;
  for (const auto& tid : list_threads()) {
    if (baseline.count(tid) || !thread_running(tid)) continue;
    std::string name = thread_name(tid);
    out.push_back(name.empty() ? tid : name + " (" + tid + ")");
  }
  return out;
}

std::vector<std::string> child_processes() {
  std::vector<std::string> pids;
  for (const auto& tid : list_threads()) {
    std::ifstream in("/proc/self/task/" + tid + "/children");
    for (std::string pid; in >> pid;) pids.push_back(pid);
  }
  return pids;
}

}  // namespace cudal1
