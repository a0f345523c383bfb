// The HTTP server both of cudal1's servers (the replay LLM server and
// `cudal1 serve`) run on: cpp-httplib's, with the listen socket set up the
// way a busy local server needs, started on a thread of its own.
#pragma once

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <httplib.h>

#include "base/result.h"

namespace cudal1 {

class http_server : public httplib::Server {
 public:
  /// Binds host:port (0: any free port) and serves on `thread` with
  /// `threads` worker threads; returns once it is serving (so that a stop()
  /// right after is never lost). Errors: the port is in use, or the host is
  /// not an address of this machine.
  result<int> start_serving(const std::string& host, int port, int threads, std::thread& thread) {
    new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
    set_keep_alive_timeout(2);  // stop() waits out idle keep-alive connections
    // httplib's default is SO_REUSEPORT, under which a second server binds the
    // same port silently and takes half the connections; SO_REUSEADDR alone
    // still allows a restart over TIME_WAIT but makes a port in use an error.
    set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    int bound = port == 0 ? bind_to_any_port(host) : (bind_to_port(host, port) ? port : -1);
    if (bound <= 0)
      return make_error("cannot listen on " + host + ":" + std::to_string(port) +
                        " (the port is in use, or the host is not an address of this machine)");
    // Debian's libcpp-httplib is built with a listen backlog of 5: eight
    // threads connecting at once overflowed it, and each dropped SYN cost a
    // second (the kernel's retransmit; LlmClient.one_client_serves_many_threads
    // took 1.03 s, 16 ms with this). Linux takes a second listen() on a
    // listening socket as a new backlog.
    ::listen(svr_sock_, SOMAXCONN);
    ended_ = false;
    thread = std::thread([this] {
      listen_after_bind();
      ended_ = true;
    });
    while (!is_running() && !ended_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!is_running()) {
      thread.join();
      return make_error("the server on " + host + ":" + std::to_string(bound) + " could not start listening");
    }
    return bound;
  }

 private:
  std::atomic<bool> ended_{false};
};

}  // namespace cudal1
